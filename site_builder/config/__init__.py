"""Settings: `site.yml` (site.py), the declaration of every key (schema.py), YAML read safely (yamlfile.py) and a
post's front matter (frontmatter.py)."""

from site_builder.config.site import CONFIG_NAME, Language, SiteConfig, load_config
from site_builder.config.yamlfile import SafeLoader, key_lines, yaml_error_line

__all__ = ["CONFIG_NAME", "Language", "SafeLoader", "SiteConfig", "key_lines", "load_config", "yaml_error_line"]
