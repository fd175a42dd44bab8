"""The SQL text of ``PostgresSessionService``, built once per service.

The append statement comes in shapes: the version and creation-stamp checks only when the
session copy has them, the ``state ||`` merge only when the event changes session keys, and the
``app:``/``user:`` merges only when it changes those scopes. An append is one durable commit, so
the server's work per statement is most of what it costs beyond the commit: a CTE or a jsonb
merge that does nothing is still executed for every event. Each shape is a fixed text, run as a
prepared statement (``_pg_statement``): prepared once per connection, the server keeps its plan.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from yadk.sessions._pg_statement import Statement

__all__ = ["REFRESH_DATA", "SessionSql", "refresh_columns", "session_columns"]

# The column of ``SessionSql.refresh`` that holds the events' stored text.
REFRESH_DATA = 7


class SessionSql:
    """The statements of one schema's session tables (``table`` names a table in it)."""

    def __init__(self, table: Callable[[str], str]) -> None:
        self.sessions, self.events = table("sessions"), table("events")
        self.apps, self.users = table("app_states"), table("user_states")
        self._appends: dict[tuple[bool, bool, bool, bool, bool], Statement] = {}
        columns = (
            "s.state, s.update_time, s.version, a.state AS app_state, u.state AS user_state,"
            " s.create_time"
        )
        joins = f"""
            FROM {self.sessions} s
            LEFT JOIN {self.apps} a ON a.app_name = s.app_name
            LEFT JOIN {self.users} u ON u.app_name = s.app_name AND u.user_id = s.user_id
            WHERE s.app_name = %(a)s AND s.user_id = %(u)s AND s.id = %(i)s"""
        # Its columns read back by ``session_columns``.
        self.session_row = Statement(f"SELECT {columns}{joins}")
        # The row and the events stored after ``since`` in one round trip (and one snapshot):
        # a first row of the session's columns (``refresh_columns``), then one row per event
        # (``REFRESH_DATA``); none when nothing is new or the session was created again
        # (another stamp), no row at all when it is gone.
        self.refresh = Statement(
            f"""
            WITH r AS (SELECT {columns}{joins})
            SELECT 0::bigint AS seq, r.*, NULL::text AS data FROM r
            UNION ALL
            SELECT e.seq, NULL, NULL, NULL, NULL, NULL, NULL, e.data
            FROM r JOIN {self.events} e
                ON r.version > %(since)s::bigint AND r.create_time = %(epoch)s::float8
                AND e.app_name = %(a)s AND e.user_id = %(u)s AND e.session_id = %(i)s
                AND e.seq > %(since)s::bigint AND e.seq <= r.version
            ORDER BY seq"""
        )
        # A session's stored events after one version up to another: what a first read (and a
        # read after another process appended) fetches, 1,000 rows in one go.
        self.events_between = Statement(
            f"""SELECT data FROM {self.events} WHERE app_name = %(a)s AND user_id = %(u)s
                AND session_id = %(i)s AND seq > %(since)s::bigint AND seq <= %(version)s::bigint
                ORDER BY seq"""
        )
        self.create = f"""
            WITH {self.merge_ctes()}
            INSERT INTO {self.sessions} VALUES (%(a)s, %(u)s, %(i)s, %(state)s::jsonb, %(t)s,
                %(t)s, 0)"""

    def merge_ctes(self, source: str = "", *, app: bool = True, user: bool = True) -> str:
        """CTEs that merge the %(app)s/%(user)s deltas into the scope rows. Without ``source``
        each is conditional on its delta (jsonb or NULL); with ``source`` (a CTE name) on that
        CTE returning a row, the deltas being there."""
        if source:
            src, app_if, user_if = f" FROM {source}", "", ""
        else:
            src = ""
            app_if = "\n                WHERE %(app)s::jsonb IS NOT NULL"
            user_if = "\n                WHERE %(user)s::jsonb IS NOT NULL"
        ctes = []
        if app:
            ctes.append(f"""
            app_merge AS (
                INSERT INTO {self.apps} SELECT %(a)s, %(app)s::jsonb{src}{app_if}
                ON CONFLICT (app_name) DO UPDATE SET state = {self.apps}.state || excluded.state
            )""")
        if user:
            ctes.append(f"""
            user_merge AS (
                INSERT INTO {self.users} SELECT %(a)s, %(u)s, %(user)s::jsonb{src}{user_if}
                ON CONFLICT (app_name, user_id) DO UPDATE
                    SET state = {self.users}.state || excluded.state
            )""")
        return ",".join(ctes)

    def append(
        self, *, expected: bool, epoch: bool, delta: bool, app: bool, user: bool
    ) -> Statement:
        """The append statement of one shape: it bumps the version (checked against
        %(expected)s and the stamp %(epoch)s when given), merges %(delta)s into the session
        state and %(app)s/%(user)s into the scope rows when given, stores the event, and
        returns its seq; no row when the session is missing or changed."""
        shape = (expected, epoch, delta, app, user)
        statement = self._appends.get(shape)
        if statement is None:
            statement = Statement(self._build_append(*shape))
            self._appends[shape] = statement
        return statement

    def _build_append(self, expected: bool, epoch: bool, delta: bool, app: bool, user: bool) -> str:
        checks = " AND version = %(expected)s::bigint" if expected else ""
        checks += " AND create_time = %(epoch)s::float8" if epoch else ""
        merge = ", state = state || %(delta)s::jsonb" if delta else ""
        scopes = self.merge_ctes("bumped", app=app, user=user) if app or user else ""
        return f"""
            WITH bumped AS (
                UPDATE {self.sessions}
                SET version = version + 1, update_time = %(t)s::float8{merge}
                WHERE app_name = %(a)s AND user_id = %(u)s AND id = %(i)s{checks}
                RETURNING version
            ){"," if scopes else ""}{scopes}
            INSERT INTO {self.events}
            SELECT %(a)s, %(u)s, %(i)s, version, %(eid)s, %(t)s, %(data)s FROM bumped
            RETURNING seq"""


def refresh_columns(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """The session's columns from the first row of ``SessionSql.refresh`` (see
    ``session_columns``): it starts with the row's sort key and ends with the event column."""
    return session_columns(row[1:REFRESH_DATA])


def session_columns(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """The session row's columns (``SessionSql.session_row``) as Python values: the session,
    app and user states (psycopg loads jsonb; NULL for a scope with no row yet), update time,
    version and creation stamp."""
    state, update_time, version, app, user, created = row
    return (
        state if state is not None else {},
        float(update_time or 0),
        int(version or 0),
        app,
        user,
        float(created or 0),
    )
