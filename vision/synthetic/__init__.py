"""tenball: vision/synthetic."""
