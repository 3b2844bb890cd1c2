"""Must fail mypy --strict: proves the checker sees the SDK's types. Each line
marked "error:" is one error the test expects."""

from pulumi_endpoints.meta import v1 as meta
from pulumi_endpoints.migration import v1alpha1 as migration

meta.ListMetaArgs(continue_=42)  # error: continue_ is a string
meta.ListMetaArgs(continue__="token")  # error: no such argument
migration.get_import_data_file(location=1)  # error: location is a string
