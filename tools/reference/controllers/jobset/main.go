// Command jobset-reference renders, with JobSet's own code, the pods a JobSet's Jobs create: the JobSet
// webhook's defaulting, the controller's Job construction (constructJob), then for each pod the Job would
// make (parallelism capped by completions, completion index annotated as the Job controller does) the Pod
// webhook's defaulting. A follower pod of exclusive placement is defaulted after its leader (completion
// index 0) was bound to node "leader-node" in topology domain "leader-domain" (the webhook reads both).
//
// Input: JSON lines {"id", "object": JobSet}. Output: {"id", "groups": [{"group", "count", "template"}]}
// (consecutive identical pods of one ReplicatedJob merged, in Job index then completion index order) or "error".
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	jobset "sigs.k8s.io/jobset/api/jobset/v1alpha2"
	"sigs.k8s.io/jobset/pkg/controllers"
	"sigs.k8s.io/jobset/pkg/util/placement"
	"sigs.k8s.io/jobset/pkg/webhooks"
)

type input struct {
	ID     string          `json:"id"`
	Object json.RawMessage `json:"object"`
}

type group struct {
	Group    string                 `json:"group"`
	Count    int32                  `json:"count"`
	Template corev1.PodTemplateSpec `json:"template"`
}

type output struct {
	ID     string  `json:"id"`
	Groups []group `json:"groups,omitempty"`
	Error  string  `json:"error,omitempty"`
}

const leaderNode, leaderDomain = "leader-node", "leader-domain"

func jobPods(spec batchv1.JobSpec) int32 {
	n := ptr.Deref(spec.Parallelism, 1)
	if spec.Completions != nil && *spec.Completions < n {
		n = *spec.Completions
	}
	return n
}

func newScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(jobset.AddToScheme(s))
	return s
}

// podOf is the pod the Job controller makes for completion index i of job (the fields the webhook reads).
func podOf(job *batchv1.Job, i int32) *corev1.Pod {
	tpl := job.Spec.Template.DeepCopy()
	pod := &corev1.Pod{ObjectMeta: tpl.ObjectMeta, Spec: tpl.Spec}
	pod.Namespace = job.Namespace
	pod.Name = placement.GenPodName(job.Labels[jobset.JobSetNameKey], job.Labels[jobset.ReplicatedJobNameKey],
		job.Labels[jobset.JobIndexKey], strconv.Itoa(int(i))) + "-abcde"
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	if ptr.Deref(job.Spec.CompletionMode, batchv1.NonIndexedCompletion) == batchv1.IndexedCompletion {
		pod.Annotations[batchv1.JobCompletionIndexAnnotation] = strconv.Itoa(int(i))
		pod.Labels[batchv1.JobCompletionIndexAnnotation] = strconv.Itoa(int(i))
	}
	pod.Labels[batchv1.JobNameLabel] = job.Name
	pod.OwnerReferences = []metav1.OwnerReference{{
		APIVersion: "batch/v1", Kind: "Job", Name: job.Name, UID: job.UID, Controller: ptr.To(true),
	}}
	// The Priority admission plugin: a pod without a class gets 0 (no global default class here).
	if pod.Spec.PriorityClassName == "" {
		pod.Spec.Priority = ptr.To[int32](0)
	}
	return pod
}

func render(in input) ([]group, error) {
	var js jobset.JobSet
	if err := json.Unmarshal(in.Object, &js); err != nil {
		return nil, fmt.Errorf("decoding the JobSet: %w", err)
	}
	// The CRD schema's default the apiserver applies before any webhook: replicas 1 where it is not given.
	var raw struct {
		Spec struct {
			ReplicatedJobs []map[string]json.RawMessage `json:"replicatedJobs"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(in.Object, &raw); err == nil {
		for i, rj := range raw.Spec.ReplicatedJobs {
			if _, given := rj["replicas"]; !given && i < len(js.Spec.ReplicatedJobs) {
				js.Spec.ReplicatedJobs[i].Replicas = 1
			}
		}
	}
	if js.Namespace == "" {
		js.Namespace = "default"
	}
	js.UID = types.UID("jobset-uid")
	ctx := context.Background()
	scheme := newScheme()
	if err := webhooks.HarnessDefaultJobSet(ctx, fake.NewClientBuilder().WithScheme(scheme).Build(), &js); err != nil {
		return nil, fmt.Errorf("JobSet webhook: %w", err)
	}
	var groups []group
	for r := range js.Spec.ReplicatedJobs {
		rjob := &js.Spec.ReplicatedJobs[r]
		for idx := 0; idx < int(rjob.Replicas); idx++ {
			job := controllers.HarnessConstructJob(&js, rjob, idx)
			job.UID = types.UID(fmt.Sprintf("job-uid-%d-%d", r, idx))
			// Every Job's pods see a cluster of their own: the leader's node, and the pods made so far.
			var topology map[string]string
			if key, ok := job.Spec.Template.Annotations[jobset.ExclusiveKey]; ok {
				topology = map[string]string{key: leaderDomain}
			}
			node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: leaderNode, Labels: topology}}
			c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(node).
				WithIndex(&corev1.Pod{}, controllers.PodNameKey, controllers.IndexPodName).Build()
			for i := int32(0); i < jobPods(job.Spec); i++ {
				pod := podOf(job, i)
				if err := webhooks.HarnessDefaultPod(ctx, c, pod); err != nil {
					return nil, fmt.Errorf("Pod webhook on %s: %w", pod.Name, err)
				}
				stored := pod.DeepCopy()
				stored.Spec.NodeName = leaderNode
				if err := c.Create(ctx, stored); err != nil {
					return nil, err
				}
				tpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: pod.Labels, Annotations: pod.Annotations}, Spec: pod.Spec}
				name := "replicatedJob " + rjob.Name
				if n := len(groups); n > 0 && groups[n-1].Group == name && same(groups[n-1].Template, tpl) {
					groups[n-1].Count++
					continue
				}
				groups = append(groups, group{Group: name, Count: 1, Template: tpl})
			}
		}
	}
	return groups, nil
}

// same compares two pods' templates without the labels and annotations that name one pod or Job.
func same(a, b corev1.PodTemplateSpec) bool {
	strip := func(t corev1.PodTemplateSpec) corev1.PodTemplateSpec {
		t = *t.DeepCopy()
		for _, key := range []string{jobset.JobIndexKey, jobset.JobKey, jobset.JobGlobalIndexKey, jobset.JobGroupIndexKey,
			batchv1.JobCompletionIndexAnnotation, batchv1.JobNameLabel} {
			delete(t.Labels, key)
			delete(t.Annotations, key)
		}
		return t
	}
	return reflect.DeepEqual(strip(a), strip(b))
}


func main() {
	writer := bufio.NewWriter(os.Stdout)
	defer writer.Flush()
	decoder := json.NewDecoder(bufio.NewReaderSize(os.Stdin, 1<<20))
	encoder := json.NewEncoder(writer)
	for decoder.More() {
		var in input
		if err := decoder.Decode(&in); err != nil {
			fmt.Fprintln(os.Stderr, "bad input line:", err)
			os.Exit(2)
		}
		out := output{ID: in.ID}
		if groups, err := render(in); err != nil {
			out.Error = err.Error()
		} else {
			out.Groups = groups
		}
		if err := encoder.Encode(out); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
}
