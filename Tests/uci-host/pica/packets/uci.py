from ucihost.uci import *  # noqa: F401,F403

# pica's names for the session-control group's data notifications.
SessionDataCreditNtf = DataCreditNtf  # noqa: F405
SessionDataTransferStatusNtf = DataTransferStatusNtf  # noqa: F405
