"""tenball: referee/live."""
