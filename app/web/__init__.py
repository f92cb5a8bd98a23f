"""The planner page: the service's root (`/`) and the pages of plans, sweeps and reproductions,
rendered by Jinja2 from the package's templates, with one small script and one stylesheet
served from the package too (nothing from outside the service)."""
