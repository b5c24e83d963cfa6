// Added to sigs.k8s.io/jobset/pkg/webhooks at build time by the overlay (build.sh): names outside the package
// for the JobSet and Pod mutating webhooks' defaulting.
package webhooks

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	jobset "sigs.k8s.io/jobset/api/jobset/v1alpha2"
)

// HarnessDefaultJobSet runs the JobSet mutating webhook's Default on js.
func HarnessDefaultJobSet(ctx context.Context, c client.Client, js *jobset.JobSet) error {
	return (&jobSetWebhook{client: c}).Default(ctx, js)
}

// HarnessDefaultPod runs the Pod mutating webhook's Default on pod, reading other pods and nodes through c.
func HarnessDefaultPod(ctx context.Context, c client.Client, pod *corev1.Pod) error {
	return (&podWebhook{client: c}).Default(ctx, pod)
}
