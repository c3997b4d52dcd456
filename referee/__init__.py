"""Shot facts, the FFB ten-ball rules engine, and the applications (review, live, CLI)."""
