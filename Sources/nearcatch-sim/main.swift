import NearcatchCommand

NearcatchSim.main()
