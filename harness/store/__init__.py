"""The evaluation record store: every evaluation (context, answer, its AWS exchanges), replay, stats, and the
shared idempotency store of several service instances. SQLite (embedded) or PostgreSQL, through SQLAlchemy."""
