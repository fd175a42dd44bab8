from . import agent  # noqa: F401  (google-adk finds root_agent through the package)
