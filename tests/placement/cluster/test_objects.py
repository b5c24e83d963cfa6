"""ResourceSlices read as device pools (a node's, every node's, one domain's); malformed ones at their path."""

from __future__ import annotations

from typing import Any

import pytest

from workloadbuilder.field import ErrorList, FieldPath
from workloadbuilder.placement.cluster.objects import device_pools
from workloadbuilder.placement.cluster.records import DevicePool

NODES = {"n1", "n2"}


def _slice(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"}, "spec": spec}


RACK = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "rack", "operator": "In", "values": ["r1"]}]}]}


@pytest.mark.parametrize(
    ("item", "pools", "errors"),
    [
        (
            _slice(driver="gpu.example.com", nodeName="n1", pool={"name": "p"}, devices=[{"name": "a"}, {"name": "b"}]),
            [DevicePool("gpu.example.com/p/s", "gpu.example.com", 2, 0, "n1", None)],
            [],
        ),
        (
            _slice(driver="nic.example.com", allNodes=True, devices=[{"name": "a"}]),
            [DevicePool("nic.example.com/s/s", "nic.example.com", 1, 0, None, None)],
            [],
        ),
        (
            _slice(driver="nic.example.com", nodeSelector=RACK, devices=[{"name": "a"}]),
            [DevicePool("nic.example.com/s/s", "nic.example.com", 1, 0, None, ("rack", "r1"))],
            [],
        ),
        (
            _slice(driver="gpu.example.com", nodeName="n9", devices=[{}]),
            [],
            ['items[0].spec.nodeName: Invalid value: "n9": no such node'],
        ),
        (_slice(nodeName="n1", devices=[{}]), [], ["items[0].spec.driver: Required value"]),
        (
            _slice(driver="d", devices="many"),
            [],
            ['items[0].spec.devices: Invalid value: "many": must be of type array'],
        ),
        (
            _slice(driver="d", nodeSelector={"nodeSelectorTerms": []}, devices=[{}]),
            [],
            [
                'items[0].spec.nodeSelector: Invalid value: "object": must name one node, all nodes, '
                "or one topology domain (one `In` of one value)"
            ],
        ),
        (_slice(driver="d", nodeName="n1", devices=[]), [], []),
    ],
    ids=[
        "node-local",
        "all-nodes",
        "one-domain",
        "unknown-node",
        "no-driver",
        "devices-not-a-list",
        "wide-selector",
        "no-devices",
    ],
)
def test_a_resource_slice_is_one_pool(item: dict[str, Any], pools: list[DevicePool], errors: list[str]) -> None:
    found = ErrorList()
    assert device_pools(item, FieldPath("items").index(0), NODES, found) == pools
    assert [str(error) for error in found] == errors
