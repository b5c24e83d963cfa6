#!/bin/sh
# Builds jobset-reference. JobSet's Job construction and webhook defaulting are unexported, so the build
# vendors the modules and adds _expose/*.go (our files: one exported name each) to JobSet's own packages in
# vendor/ (the go command refuses an overlay of the module cache). vendor/ is not committed.
set -eu
cd "$(dirname "$0")"
go mod vendor
cp _expose/controllers.go vendor/sigs.k8s.io/jobset/pkg/controllers/zz_harness_expose.go
cp _expose/webhooks.go vendor/sigs.k8s.io/jobset/pkg/webhooks/zz_harness_expose.go
nice -n 10 go build -mod=vendor -o jobset-reference .
