"""Kalman tracking of the eleven balls and the physical events inferred from tracks."""
