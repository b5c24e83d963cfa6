// Added to sigs.k8s.io/jobset/pkg/controllers at build time by the overlay (build.sh): a name outside the
// package for the controller's own unexported Job construction.
package controllers

import (
	batchv1 "k8s.io/api/batch/v1"

	jobset "sigs.k8s.io/jobset/api/jobset/v1alpha2"
)

// HarnessConstructJob is the controller's constructJob: Job jobIdx of ReplicatedJob rjob of js.
func HarnessConstructJob(js *jobset.JobSet, rjob *jobset.ReplicatedJob, jobIdx int) *batchv1.Job {
	return constructJob(js, rjob, jobIdx)
}
