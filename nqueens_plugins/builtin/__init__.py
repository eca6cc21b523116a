"""The built-in plugins: one module per family of methods, registered like any third-party plugin."""
