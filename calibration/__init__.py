"""Table model and camera model: from pixels to table millimetres and back."""
