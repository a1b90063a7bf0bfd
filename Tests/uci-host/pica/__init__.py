"""pica's Python host names, answered by nearcatch-sim's own host (ucihost), so that hosts written against pica run
unchanged against `nearcatch-sim uci` with this directory on PYTHONPATH (docs/uci.md)."""
from ucihost import Host  # noqa: F401
