"""What step modules import to validate learners' resources deeply and briefly."""
