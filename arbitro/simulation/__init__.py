"""Playing hands: random playouts (playout.py), the policies that choose moves (policies.py), many
hands summarised (simulate.py), one game as a transcript (play.py) and public Hypothesis
strategies (strategies.py)."""
