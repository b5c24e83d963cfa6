"""A testing kit for code that uses workloadbuilder: factories, an error matcher, golden files, hypothesis strategies.

Operator authors unit-test their own API's translation into WorkloadItem
trees with the same tools this project's tests use. After
``pip install workloadbuilder`` the pytest plugin (``workloadbuilder.testing.plugin``)
offers the ``golden`` fixture and the ``--update-goldens`` option;
hypothesis strategies for trees and clusters live in
``workloadbuilder.testing.strategies`` (import it only where hypothesis is
installed).
"""

from workloadbuilder.testing.factories import job_owner, make_cluster, make_item, make_options
from workloadbuilder.testing.golden import Golden, assert_golden
from workloadbuilder.testing.matchers import assert_field_errors

__all__ = ["Golden", "assert_field_errors", "assert_golden", "job_owner", "make_cluster", "make_item", "make_options"]
