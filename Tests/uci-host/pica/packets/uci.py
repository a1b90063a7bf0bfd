from ucihost.uci import *  # noqa: F401,F403
