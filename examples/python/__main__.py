"""A normal Pulumi program (`pulumi up`)."""

from program import program

program()
