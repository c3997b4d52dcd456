"""tenball: referee/rules."""
