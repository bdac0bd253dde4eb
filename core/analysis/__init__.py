"""What is measured about schemes (docs/architecture.md lists the modules). Imports core.schemes and the figure grid only."""
