// Command trainer-reference renders, with Kubeflow Trainer's own runtime framework, the JobSet a TrainJob
// becomes over its TrainingRuntime or ClusterTrainingRuntime, and prints each ReplicatedJob's pod template.
//
// Input: JSON lines {"id", "object": TrainJob, "related": [runtime objects]}.
// Output: the same line with "groups": [{"group", "count", "template"}] or "error".
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/kubeflow/trainer/v2/pkg/runtime/core"
	testingutil "github.com/kubeflow/trainer/v2/pkg/util/testing"
	trainer "github.com/kubeflow/trainer/v2/pkg/apis/trainer/v1alpha1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	jobsetv1alpha2 "sigs.k8s.io/jobset/api/jobset/v1alpha2"
)

type input struct {
	ID      string            `json:"id"`
	Object  json.RawMessage   `json:"object"`
	Related []json.RawMessage `json:"related"`
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

// jobPods is how many pods a batch Job runs at once: parallelism (1 by default), capped by completions.
func jobPods(spec batchv1.JobSpec) int32 {
	n := ptr.Deref(spec.Parallelism, 1)
	if spec.Completions != nil && *spec.Completions < n {
		n = *spec.Completions
	}
	return n
}

func render(in input) (groups []group, err error) {
	// A plugin that panics on an input is recorded as the panic (Flux's on a TrainJob of the examples).
	defer func() {
		if r := recover(); r != nil {
			groups, err = nil, fmt.Errorf("panic: %v", r)
		}
	}()
	var job trainer.TrainJob
	if err := json.Unmarshal(in.Object, &job); err != nil {
		return nil, fmt.Errorf("decoding the TrainJob: %w", err)
	}
	if job.Namespace == "" {
		job.Namespace = "default"
	}
	builder := testingutil.NewClientBuilder()
	for _, raw := range in.Related {
		var meta struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal(raw, &meta); err != nil {
			return nil, err
		}
		var obj client.Object
		switch meta.Kind {
		case "TrainingRuntime":
			rt := &trainer.TrainingRuntime{}
			if err := json.Unmarshal(raw, rt); err != nil {
				return nil, fmt.Errorf("decoding the TrainingRuntime: %w", err)
			}
			if rt.Namespace == "" {
				rt.Namespace = job.Namespace
			}
			obj = rt
		case "ClusterTrainingRuntime":
			rt := &trainer.ClusterTrainingRuntime{}
			if err := json.Unmarshal(raw, rt); err != nil {
				return nil, fmt.Errorf("decoding the ClusterTrainingRuntime: %w", err)
			}
			obj = rt
		default:
			continue
		}
		builder = builder.WithObjects(obj)
	}
	ctx := context.Background()
	c := builder.Build()
	// As Trainer's own tests do: a fake client holding the runtime, the TrainingRuntime factory made first (a
	// ClusterTrainingRuntime reuses its framework), no configuration.
	rt, err := core.NewTrainingRuntime(ctx, c, testingutil.AsIndex(builder), nil)
	if err != nil {
		return nil, err
	}
	if ref := job.Spec.RuntimeRef; ptr.Deref(ref.Kind, trainer.ClusterTrainingRuntimeKind) == trainer.ClusterTrainingRuntimeKind {
		rt, err = core.NewClusterTrainingRuntime(ctx, c, testingutil.AsIndex(builder), nil)
		if err != nil {
			return nil, err
		}
	}
	applied, err := rt.NewObjects(ctx, &job)
	if err != nil {
		return nil, err
	}
	objects, err := testingutil.ToObject(c.Scheme(), applied...)
	if err != nil {
		return nil, err
	}
	for _, obj := range objects {
		js, ok := obj.(*jobsetv1alpha2.JobSet)
		if !ok {
			continue
		}
		for _, rjob := range js.Spec.ReplicatedJobs {
			groups = append(groups, group{
				Group:    "replicatedJob " + rjob.Name,
				Count:    rjob.Replicas * jobPods(rjob.Template.Spec),
				Template: rjob.Template.Spec.Template,
			})
		}
	}
	if groups == nil {
		return nil, fmt.Errorf("the runtime framework built no JobSet")
	}
	return groups, nil
}

func main() {
	klog.SetOutput(os.Stderr)
	reader := bufio.NewReaderSize(os.Stdin, 1<<20)
	writer := bufio.NewWriter(os.Stdout)
	defer writer.Flush()
	decoder := json.NewDecoder(reader)
	encoder := json.NewEncoder(writer)
	for decoder.More() {
		var in input
		if err := decoder.Decode(&in); err != nil {
			fmt.Fprintln(os.Stderr, "bad input line:", err)
			os.Exit(2)
		}
		out := output{ID: in.ID}
		groups, err := render(in)
		if err != nil {
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
