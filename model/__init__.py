"""The executable reference model of arbitro: reads the rulebook specs, plays them exactly."""
