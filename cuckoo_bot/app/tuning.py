"""Every cap and interval of delivery and of the live table, in one place, each with why.

The settings an operator may change are environment variables (``config.py``); these are the
bot's own choices, fixed by Telegram's limits, the lease arithmetic or a measurement. What a
process keeps in memory is capped here too: each such memory is a cache of the store (the
store stays the truth), evicting the least recently used entry first (``cachetools``).
"""

from __future__ import annotations

from datetime import timedelta

# -- Several instances: who holds a notice (``app/outbox.py``) ----------------------------------

# A notice is held by one instance at a time, for LEASE unless renewed; the holder renews what
# it has in hand every RENEW_EVERY, on a job of its own. An instance that dies leaves its
# notices to the others once the lease runs out and the next sweep (every SWEEP_EVERY) finds
# them: at most LEASE + SWEEP_EVERY = 8 s.
LEASE = timedelta(seconds=6)
RENEW_EVERY = timedelta(seconds=2)
SWEEP_EVERY = timedelta(seconds=2)
# A holder calls Telegram for a notice only while its claim was confirmed (claimed, written or
# renewed) less than HOLD ago: the rest of the lease covers a call under way, so a holder that
# could not renew in time (its store lagging, its loop stalled) stops calling before another
# instance may take the notice over.
HOLD = LEASE - timedelta(seconds=2)
# A notice whose send fails for an unexpected reason is tried again after 2, 4, 8 ... s (at
# most RETRY_AT_MOST), and given up after MAX_TRIES with its reason kept.
MAX_TRIES = 6
RETRY_AT_MOST = timedelta(minutes=5)
RETENTION = timedelta(days=2)  # sent notices nothing edits any more are deleted after this
PRUNE_EVERY = timedelta(minutes=10)  # how often an instance deletes them
ALIVE_WITHIN = 3 * RENEW_EVERY  # an instance not heard of for longer is gone (shared limits)

# -- The courier (``transport/delivery/``) -------------------------------------------------------

# A sweep of every chat leaves notices younger than this to the press that wrote them (its
# delivery may not have started yet).
FRESH = timedelta(seconds=10)
# A chat where another instance is showing older notices is looked at again this soon (s).
ELSEWHERE = 0.25
# A mark is stamped before it commits: a batch that read its chats' messages up to this long
# after another process's stamp may not have seen what was marked, and reads them again (one
# statement, only with several instances). Stamp to commit is a statement and a commit (a few
# more where a delivery's outcome changes the game, a chat that moved, a player who blocked the
# bot); seconds only on a machine loaded to stalling. It also covers the hosts' clocks differing
# (each stamps with its own).
MARK_LAG = timedelta(seconds=5)
# After a crash, the messages just before a notice shown again whose keys are cleared (a copy
# the dead process may have shown stands among them, people's messages too).
GAP = 5
# An edit or a delete whose answer was lost is made again at once only if the lost one took
# less than this (s): a slow one may have outlived its claims (``HOLD`` keeps 2 s for a call).
AGAIN_WITHIN = 1.0
# The newest messages of a chat a lane may need from this process's memory (a press handled
# before the batch that showed the last prompt was marked).
RECENT_PER_CHAT = 8

# -- Repairs (``app/repair.py``) -------------------------------------------------------------

REPAIR_GRACE = timedelta(seconds=15)  # a turn or a table this old with no message is repaired
REPAIR_EVERY = timedelta(seconds=10)  # how often the sweeper looks for them

# -- Memory: caches of the store, capped (least recently used out first) ---------------------

NOTICES_KEPT = 20_000  # notices this process made or marked, remembered to not send twice
CHATS_KEPT = 10_000  # chats whose recent messages, last message seen or pace are remembered

# -- The live table (``transport/webapp/``) ----------------------------------------------------

PING_EVERY = 15.0  # seconds between two keep-alive comments on an idle event stream
# How often an idle stream looks whether its page went away (a reload, a closed tab): its slot
# is free again within this, not at the next ping's failed write.
GONE_EVERY = 1.0
MEMBER_FOR = 300.0  # seconds a group membership, once asked of Telegram, is taken as known
MEMBERS_KEPT = 10_000  # memberships remembered at most
STREAMS_SPARE = 32  # connections kept free of event streams (Telegram's updates, health checks)
BODY_LIMIT = 4096  # bytes of a move's JSON body
STREAMS_PER_USER = 4  # event streams one person may hold open (a few devices, a reload)
WRITE_TIMEOUT = 10.0  # seconds a page has to take an event before it is let go
