"""keine_ahnung_env: batched reinforcement-learning environments for hidden-information card games.

Games (one module per variant family, PettingZoo-style versioned):

* ``keine_ahnung_v0`` - Keine Ahnung / No Idea, 2-5 players.
"""

from . import keine_ahnung_v0

__all__ = ["keine_ahnung_v0"]
__version__ = "0.1.0"
