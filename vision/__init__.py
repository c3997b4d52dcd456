"""Frame sources, ball detection and ball identification."""
