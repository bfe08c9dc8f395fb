"""site_builder: a static blog generator whose posts' code keeps running."""

__version__ = "0.1.0"
