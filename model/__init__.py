"""The executable reference model of arbitro: reads the rulebook specs, plays them exactly."""

# the schema gives the spec loader its whole-rulebook check (spec.set_schema_check): importing it
# here, before any loading, means every rulebook loaded anywhere is checked
from arbitro.model import schema as _schema  # noqa: F401
