package main

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// sequenceResult is what placeSequence records: one single-pod result per
// copy of the pod, in order, and the node each copy was assumed on.
type sequenceResult struct {
	Steps  []result `json:"steps"`
	Chosen []string `json:"chosen"`
}

// placeSequence places inst.Count copies of inst.Pod one at a time, as a
// gang's pods go through their scheduling cycles one after another: each
// copy is filtered and scored by the real framework (place) with the copies
// before it on their nodes, as the scheduler's cache holds assumed pods.
// Among equal best nodes the copy is assumed on the first by name (the
// real scheduler draws at random; the engine takes the node listed first,
// and the generated nodes are listed in name order), so every later step
// is scored over the same cluster on both sides. The sequence stops at the
// first copy that fits nowhere.
func placeSequence(inst *instance) sequenceResult {
	out := sequenceResult{Steps: []result{}, Chosen: []string{}}
	running := append([]*v1.Pod(nil), inst.Pods...)
	for k := 0; k < inst.Count; k++ {
		pod := inst.Pod.DeepCopy()
		pod.Name = fmt.Sprintf("%s-%d", inst.Pod.Name, k)
		pod.UID = types.UID("incoming-" + pod.Name)
		pods := make([]*v1.Pod, len(running))
		for i, p := range running {
			pods[i] = p.DeepCopy()
		}
		step := instance{ID: inst.ID, Family: inst.Family, Nodes: copyNodes(inst.Nodes), Pods: pods, Pod: pod}
		res := place(&step)
		res.Rejected = nil // the single-pod recording has them; here they would only make the file larger
		out.Steps = append(out.Steps, res)
		if len(res.Best) == 0 || res.Error != "" {
			break
		}
		chosen := res.Best[0]
		out.Chosen = append(out.Chosen, chosen)
		assumed := inst.Pod.DeepCopy()
		assumed.Name = pod.Name
		assumed.UID = ""
		assumed.Spec.NodeName = chosen
		running = append(running, assumed)
	}
	return out
}

func copyNodes(nodes []*v1.Node) []*v1.Node {
	out := make([]*v1.Node, len(nodes))
	for i, n := range nodes {
		out[i] = n.DeepCopy()
	}
	return out
}
