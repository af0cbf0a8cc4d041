"""The evaluations and idempotency tables.

Revision ID: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "evaluations",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("lab", sa.String(200), nullable=False),
        sa.Column("step", sa.String(8), nullable=False),
        sa.Column("lab_version", sa.String(64), nullable=False),
        sa.Column("source", sa.String(16), nullable=False),
        sa.Column("request_id", sa.String(300)),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("issue", sa.Text),
        sa.Column("error_kind", sa.String(32)),
        sa.Column("duration_ms", sa.Float, nullable=False),
        sa.Column("region", sa.String(32), nullable=False),
        sa.Column("context", sa.Text, nullable=False),
        sa.Column("answer", sa.Text, nullable=False),
        sa.Column("calls", sa.Integer, nullable=False),
        sa.Column("recording", sa.LargeBinary, nullable=False),
    )
    op.create_index("evaluations_lab_step_created", "evaluations", ["lab", "step", "created_at"])
    op.create_table(
        "idempotency",
        sa.Column("key", sa.String(300), primary_key=True),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.Column("owner", sa.String(32), nullable=False),
        sa.Column("state", sa.String(8), nullable=False),
        sa.Column("answer", sa.Text),
        sa.Column("updated_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("idempotency")
    op.drop_index("evaluations_lab_step_created", "evaluations")
    op.drop_table("evaluations")
