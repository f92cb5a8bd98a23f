"""Pure domain of rwaopt: the WDM ring, the papers' collective algorithms and their traffic,
their closed forms, the time model and optics. Imports nothing from `solver` or `app`."""
