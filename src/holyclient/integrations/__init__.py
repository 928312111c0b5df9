"""Adapters to engines that run holyclient at cluster scale. Each module imports its engine itself
(``holyclient.integrations.ray`` needs ``pip install 'holyclient[ray]'``); this package imports none."""
