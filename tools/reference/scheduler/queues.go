package main

// Queues: a whole kube-scheduler driven through simulate's events in
// simulated time. Each workload of the queue arrives at its arrival time (its
// PodGroups, then their pods, are created), runs duration seconds once all of
// its pods are bound, then ends (its pods and PodGroups are deleted). At each
// event time, in order, the harness applies the completions and arrivals due,
// waits until the scheduler's informers have delivered them, and then lets
// the scheduler schedule until nothing is left in its active queue, no
// binding is in flight and nothing happened for a short quiet time. Every
// binding is recorded with the event time it happened at; a workload's end
// is its start plus its duration, from the recorded bindings, as simulate
// computes it.
//
// The scheduling loop is the harness's own (sched.ScheduleOne called only
// while the active queue holds something), so that no pod is popped while
// the events of one time are still being applied. The scheduler runs on a
// fake clock: in 1.37.2 a PodGroup that fails goes back to the backoff
// queue (1 s doubling up to 10 s times the square root of its pods) rather
// than waiting for a cluster event, so at every event time the harness steps
// the clock past every backoff, and every waiting gang is tried again with
// what arrived, in the queue's order (priority, then the time of its last
// attempt), as simulate tries its waiting copies. The clock moves on 1 ms
// after every attempt, so attempts keep their order in the timestamps.
//
// A workload the scheduler preempts (some pod deleted by the scheduler, not
// by the harness) is restarted as a controller would: its remaining pods and
// its PodGroups are deleted and made again, the pods under new names
// ("<group>-<i>-r<k>"), so that a late deletion of the old pod cannot hit the
// new one.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	schedv1 "k8s.io/api/scheduling/v1"
	schedv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/profile"
	testingclock "k8s.io/utils/clock/testing"
)

// queueInstance is a queue of workloads on a cluster: the same objects as a
// pod-group instance, with "queue" in place of "groups" and "templates".
type queueInstance struct {
	ID              string                   `json:"id"`
	Nodes           []*v1.Node               `json:"nodes"`
	Pods            []*v1.Pod                `json:"pods"`
	PriorityClasses []*schedv1.PriorityClass `json:"priorityClasses"`
	Queue           []queuedWorkload         `json:"queue"`
	Runs            int                      `json:"runs"`
}

// queuedWorkload is one entry of simulate's queue: what a QueueEntry of
// count 1 holds, its request as PodGroups (and CompositePodGroups) with the
// pod templates of the PodGroups.
type queuedWorkload struct {
	Name      string            `json:"name"`
	Arrival   float64           `json:"arrival"`
	Duration  float64           `json:"duration"`
	Groups    []json.RawMessage `json:"groups"`
	Templates map[string]podSet `json:"templates"`
}

// binding is one recorded binding: the event time it happened at.
type binding struct {
	Time float64 `json:"time"`
	Pod  string  `json:"pod"`
	Node string  `json:"node"`
}

// queueOutcome is what one run did.
type queueOutcome struct {
	// Starts and Ends are per workload the start that ran to its end (null:
	// it never did), as simulate's CopyRun has them.
	Starts map[string]*float64 `json:"starts"`
	Ends   map[string]*float64 `json:"ends"`
	// Order is the workloads in the order of those starts (by time, then by
	// the first binding of the start).
	Order []string `json:"order"`
	// Preempted counts per workload how often its pods were preempted.
	Preempted map[string]int `json:"preempted"`
	// Nodes maps each pod of a start that ran to its end to its node.
	Nodes    map[string]string `json:"nodes"`
	Bindings []binding         `json:"bindings"`
	// Events is the number of event times played.
	Events   int    `json:"events"`
	TimedOut bool   `json:"timedOut"`
	Partial  bool   `json:"partial"`
	Panic    string `json:"panic,omitempty"`
}

type queueResult struct {
	Outcomes []queueOutcomeCount `json:"outcomes"`
	Runs     int                 `json:"runs"`
	Error    string              `json:"error,omitempty"`
}

type queueOutcomeCount struct {
	queueOutcome
	Count int `json:"count"`
}

func placeQueue(inst *queueInstance, defaultRuns int) queueResult {
	runs := inst.Runs
	if runs <= 0 {
		runs = defaultRuns
	}
	res := queueResult{Runs: runs}
	seen := map[string]int{}
	for r := 0; r < runs; r++ {
		out, err := runQueue(inst)
		if err != nil {
			res.Error = err.Error()
			return res
		}
		key, _ := json.Marshal(struct {
			S map[string]*float64
			O []string
			N map[string]string
			P map[string]int
			T bool
			X string
		}{out.Starts, out.Order, out.Nodes, out.Preempted, out.TimedOut || out.Partial, out.Panic})
		if i, ok := seen[string(key)]; ok {
			res.Outcomes[i].Count++
			continue
		}
		seen[string(key)] = len(res.Outcomes)
		res.Outcomes = append(res.Outcomes, queueOutcomeCount{queueOutcome: out, Count: 1})
	}
	return res
}

// workloadState is one workload as the run goes.
type workloadState struct {
	spec     *queuedWorkload
	pods     []string // the pod names of the present incarnation
	groups   []runtime.Object
	bound    map[string]bool
	running  bool
	start    float64
	epoch    int
	restarts int
	firstAt  int // index in the bindings of the present start's first binding
}

// queueRecorder holds what the reactors saw, under one lock.
type queueRecorder struct {
	mu       sync.Mutex
	panicked string
	now      float64
	bindings []binding
	owner    map[string]string // pod name -> workload
	ours     map[string]bool   // pods the harness deletes itself
	evicted  map[string]bool   // workloads the scheduler deleted a pod of
	activity int
	// preemptions counts the pods the scheduler deleted.
	preemptions int
}

func (q *queueRecorder) setPanic(text string) {
	q.mu.Lock()
	if q.panicked == "" {
		q.panicked = text
	}
	q.mu.Unlock()
}

// currentQueue is the recorder of the queue run under way, for the panic handler.
var currentQueue atomic.Pointer[queueRecorder]

func init() {
	utilruntime.PanicHandlers = append(utilruntime.PanicHandlers, func(_ context.Context, r interface{}) {
		if rec := currentQueue.Load(); rec != nil {
			rec.setPanic(fmt.Sprint(r))
		}
	})
}

// debug prints every event time's summary on stderr (SCHEDULER_REFERENCE_DEBUG=1).
var debug = os.Getenv("SCHEDULER_REFERENCE_DEBUG") != ""

type event struct {
	time     float64
	arrival  bool
	workload int
	epoch    int
}

func runQueue(inst *queueInstance) (queueOutcome, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logger := klog.FromContext(ctx)
	client := fake.NewClientset()
	tracker := client.Tracker()
	rec := &queueRecorder{owner: map[string]string{}, ours: map[string]bool{}, evicted: map[string]bool{}}
	currentQueue.Store(rec)
	defer currentQueue.Store(nil)
	podsGVR := v1.SchemeGroupVersion.WithResource("pods")
	client.PrependReactor("create", "pods", func(action clienttesting.Action) (bool, runtime.Object, error) {
		if action.GetSubresource() != "binding" {
			return false, nil, nil
		}
		b := action.(clienttesting.CreateAction).GetObject().(*v1.Binding)
		obj, err := tracker.Get(podsGVR, b.Namespace, b.Name)
		if err != nil {
			return true, nil, err
		}
		pod := obj.(*v1.Pod).DeepCopy()
		pod.Spec.NodeName = b.Target.Name
		if err := tracker.Update(podsGVR, pod, pod.Namespace); err != nil {
			return true, nil, err
		}
		rec.mu.Lock()
		rec.bindings = append(rec.bindings, binding{rec.now, b.Name, b.Target.Name})
		rec.activity++
		rec.mu.Unlock()
		return true, b, nil
	})
	client.PrependReactor("delete", "pods", func(action clienttesting.Action) (bool, runtime.Object, error) {
		name := action.(clienttesting.DeleteAction).GetName()
		rec.mu.Lock()
		if !rec.ours[name] {
			rec.preemptions++
			if w, ok := rec.owner[name]; ok {
				rec.evicted[w] = true
			}
		}
		rec.activity++
		rec.mu.Unlock()
		return false, nil, nil
	})

	uid := func(kind, name string, k int) types.UID { return types.UID(fmt.Sprintf("%s-%s-%d", kind, name, k)) }
	for _, n := range inst.Nodes {
		n.UID = uid("node", n.Name, 0)
		if err := tracker.Add(n); err != nil {
			return queueOutcome{}, fmt.Errorf("add node: %w", err)
		}
	}
	for _, pc := range inst.PriorityClasses {
		pc.UID = uid("pc", pc.Name, 0)
		if err := tracker.Add(pc); err != nil {
			return queueOutcome{}, fmt.Errorf("add priority class: %w", err)
		}
	}
	for _, p := range inst.Pods {
		if p.Namespace == "" {
			p.Namespace = "default"
		}
		p.UID = uid("pod", p.Name, 0)
		if p.Spec.SchedulerName == "" {
			p.Spec.SchedulerName = v1.DefaultSchedulerName
		}
		if p.Status.Phase == "" {
			p.Status.Phase = v1.PodRunning
		}
		if err := tracker.Add(p); err != nil {
			return queueOutcome{}, fmt.Errorf("add pod: %w", err)
		}
	}

	factory := scheduler.NewInformerFactory(client, 0, nil)
	recorders := profile.RecorderFactory(func(string) events.EventRecorderLogger { return &events.FakeRecorder{} })
	clock := testingclock.NewFakeClock(time.Date(2026, 7, 1, 10, 0, 0, 0, time.UTC))
	sched, err := scheduler.New(ctx, client, factory, nil, recorders,
		scheduler.WithParallelism(1),
		scheduler.WithClock(clock))
	if err != nil {
		return queueOutcome{}, fmt.Errorf("scheduler.New: %w", err)
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	defer func() { cancel(); factory.Shutdown() }()
	if err := sched.WaitForHandlersSync(ctx); err != nil {
		return queueOutcome{}, fmt.Errorf("handlers: %w", err)
	}
	// What sched.Run starts, but the scheduling loop, which is ours.
	sched.SchedulingQueue.Run(logger)
	if sched.APIDispatcher != nil {
		sched.APIDispatcher.Run(logger)
	}
	defer func() {
		if sched.APIDispatcher != nil {
			sched.APIDispatcher.Close()
		}
		sched.SchedulingQueue.Close()
		_ = sched.Profiles.Close()
	}()

	d := &driver{ctx: ctx, client: client, sched: sched, rec: rec, inst: inst, clock: clock}
	return d.play()
}

// driver plays one run's events.
type driver struct {
	ctx       context.Context
	client    *fake.Clientset
	sched     *scheduler.Scheduler
	rec       *queueRecorder
	clock     *testingclock.FakeClock
	inst      *queueInstance
	workloads []*workloadState
	out       queueOutcome
	order     []orderKey
}

type orderKey struct {
	start float64
	first int
	name  string
}

func (d *driver) play() (queueOutcome, error) {
	d.out = queueOutcome{Starts: map[string]*float64{}, Ends: map[string]*float64{}, Preempted: map[string]int{}, Nodes: map[string]string{}}
	var pending []event
	for i := range d.inst.Queue {
		w := &d.inst.Queue[i]
		d.workloads = append(d.workloads, &workloadState{spec: w, bound: map[string]bool{}})
		d.out.Starts[w.Name] = nil
		d.out.Ends[w.Name] = nil
		pending = append(pending, event{time: w.Arrival, arrival: true, workload: i})
	}
	for len(pending) > 0 {
		sort.SliceStable(pending, func(a, b int) bool { return pending[a].time < pending[b].time })
		now := pending[0].time
		var due []event
		for len(pending) > 0 && pending[0].time == now {
			due = append(due, pending[0])
			pending = pending[1:]
		}
		d.rec.mu.Lock()
		d.rec.now = now
		d.rec.mu.Unlock()
		d.out.Events++
		var created, deleted []string
		// Completions first, as simulate frees before its pass; then arrivals.
		for _, e := range due {
			w := d.workloads[e.workload]
			if e.arrival || !w.running || e.epoch != w.epoch {
				continue
			}
			end := now
			start := w.start
			d.out.Starts[w.spec.Name], d.out.Ends[w.spec.Name] = &start, &end
			d.order = append(d.order, orderKey{start, w.firstAt, w.spec.Name})
			for _, p := range w.pods {
				d.out.Nodes[p] = d.nodeOf(p)
			}
			w.running = false
			gone, err := d.remove(w)
			if err != nil {
				return d.out, err
			}
			deleted = append(deleted, gone...)
		}
		for _, e := range due {
			if !e.arrival {
				continue
			}
			made, err := d.create(d.workloads[e.workload])
			if err != nil {
				return d.out, err
			}
			created = append(created, made...)
		}
		d.delivered(created)
		// When something ended, every entity that waits is tried again, in
		// the queue's order with what arrived: its backoff is over. After an
		// arrival alone what waits could not fit better than before, so it
		// is left in backoff (simulate's pass tries only what arrived).
		if len(deleted) > 0 {
			d.flushBackoff()
		}
		started, err := d.settle(now)
		if debug {
			_, summary := d.sched.SchedulingQueue.PendingPods()
			fmt.Fprintf(os.Stderr, "%s t=%g created=%d deleted=%d started=%v timedOut=%v %s\n", d.inst.ID, now, len(created), len(deleted), started, d.out.TimedOut, summary)
		}
		if err != nil {
			return d.out, err
		}
		for _, i := range started {
			w := d.workloads[i]
			pending = append(pending, event{time: now + w.spec.Duration, workload: i, epoch: w.epoch})
		}
	}
	sort.SliceStable(d.order, func(a, b int) bool {
		if d.order[a].start != d.order[b].start {
			return d.order[a].start < d.order[b].start
		}
		return d.order[a].first < d.order[b].first
	})
	for _, k := range d.order {
		d.out.Order = append(d.out.Order, k.name)
	}
	d.rec.mu.Lock()
	d.out.Bindings = append([]binding{}, d.rec.bindings...)
	d.out.Panic = d.rec.panicked
	d.rec.mu.Unlock()
	return d.out, nil
}

func (d *driver) nodeOf(pod string) string {
	obj, err := d.client.Tracker().Get(v1.SchemeGroupVersion.WithResource("pods"), "default", pod)
	if err != nil {
		return ""
	}
	return obj.(*v1.Pod).Spec.NodeName
}

// create makes the workload's PodGroups, then its pods, as a controller
// would: PodGroups first, so that the pods' group exists when they come.
func (d *driver) create(w *workloadState) ([]string, error) {
	tracker := d.client.Tracker()
	k := w.restarts
	w.groups = nil
	for _, raw := range w.spec.Groups {
		obj, err := decodeGroup(raw, k)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", w.spec.Name, err)
		}
		if err := tracker.Add(obj); err != nil {
			return nil, fmt.Errorf("add group: %w", err)
		}
		w.groups = append(w.groups, obj)
	}
	gi := groupInstance{Groups: w.spec.Groups, Templates: w.spec.Templates}
	names := make([]string, 0, len(w.spec.Templates))
	for name := range w.spec.Templates {
		names = append(names, name)
	}
	sort.Strings(names)
	w.pods = nil
	w.bound = map[string]bool{}
	base := time.Date(2026, 7, 1, 10, 0, 0, 0, time.UTC)
	for _, name := range names {
		set := w.spec.Templates[name]
		priority, policy := rootPriority(&gi, name)
		for i := 0; i < set.Count; i++ {
			pod := &v1.Pod{ObjectMeta: *set.Template.ObjectMeta.DeepCopy(), Spec: *set.Template.Spec.DeepCopy()}
			pod.Name = fmt.Sprintf("%s-%d", name, i)
			if k > 0 {
				pod.Name += "-r" + strconv.Itoa(k)
			}
			pod.Namespace = "default"
			pod.UID = types.UID(fmt.Sprintf("pod-%s-%d", pod.Name, k))
			pod.CreationTimestamp = metav1.NewTime(base.Add(time.Duration(w.spec.Arrival*1000) * time.Millisecond))
			group := name
			pod.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &group}
			pod.Spec.Priority = &priority
			if policy != nil {
				p := v1.PreemptionPolicy(*policy)
				pod.Spec.PreemptionPolicy = &p
			}
			if pod.Spec.SchedulerName == "" {
				pod.Spec.SchedulerName = v1.DefaultSchedulerName
			}
			pod.Status.Phase = v1.PodPending
			d.rec.mu.Lock()
			d.rec.owner[pod.Name] = w.spec.Name
			d.rec.mu.Unlock()
			if err := tracker.Add(pod); err != nil {
				return nil, fmt.Errorf("add pod: %w", err)
			}
			w.pods = append(w.pods, pod.Name)
		}
	}
	return w.pods, nil
}

// remove deletes the workload's pods that are still there, then its groups.
func (d *driver) remove(w *workloadState) ([]string, error) {
	tracker := d.client.Tracker()
	podsGVR := v1.SchemeGroupVersion.WithResource("pods")
	var gone []string
	for _, p := range w.pods {
		d.rec.mu.Lock()
		d.rec.ours[p] = true
		d.rec.mu.Unlock()
		if _, err := tracker.Get(podsGVR, "default", p); err != nil {
			continue
		}
		if err := d.client.CoreV1().Pods("default").Delete(d.ctx, p, metav1.DeleteOptions{}); err != nil {
			return nil, fmt.Errorf("delete pod %s: %w", p, err)
		}
		gone = append(gone, p)
	}
	for _, obj := range w.groups {
		m := obj.(metav1.Object)
		var err error
		switch obj.(type) {
		case *schedv1beta1.PodGroup:
			err = tracker.Delete(schedv1beta1.SchemeGroupVersion.WithResource("podgroups"), m.GetNamespace(), m.GetName())
		case *schedv1alpha3.CompositePodGroup:
			err = tracker.Delete(schedv1alpha3.SchemeGroupVersion.WithResource("compositepodgroups"), m.GetNamespace(), m.GetName())
		}
		if err != nil {
			return nil, fmt.Errorf("delete group %s: %w", m.GetName(), err)
		}
	}
	return gone, nil
}

func decodeGroup(raw json.RawMessage, k int) (runtime.Object, error) {
	var meta typeMeta
	if err := json.Unmarshal(raw, &meta); err != nil {
		return nil, err
	}
	switch meta.Kind {
	case "PodGroup":
		pg := &schedv1beta1.PodGroup{}
		if err := json.Unmarshal(raw, pg); err != nil {
			return nil, err
		}
		if pg.Namespace == "" {
			pg.Namespace = "default"
		}
		pg.UID = types.UID(fmt.Sprintf("pg-%s-%d", pg.Name, k))
		pg.Generation = 1
		return pg, nil
	case "CompositePodGroup":
		cpg := &schedv1alpha3.CompositePodGroup{}
		if err := json.Unmarshal(raw, cpg); err != nil {
			return nil, err
		}
		if cpg.Namespace == "" {
			cpg.Namespace = "default"
		}
		cpg.UID = types.UID(fmt.Sprintf("cpg-%s-%d", cpg.Name, k))
		cpg.Generation = 1
		return cpg, nil
	}
	return nil, fmt.Errorf("unknown group kind %q", meta.Kind)
}

// queueCounts parses the scheduling queue's summary: activeQ, backoffQ and
// the pods of PodGroups still waiting for their group (pendingPodGroupMemberPods
// and incompletePodGroupPods), and gives the names of every pending pod.
func (d *driver) queueCounts() (active, backoff, waiting int, names map[string]bool) {
	pods, summary := d.sched.SchedulingQueue.PendingPods()
	names = map[string]bool{}
	for _, p := range pods {
		names[p.Name] = true
	}
	for _, part := range strings.Split(summary, ";") {
		kv := strings.SplitN(strings.TrimSpace(part), ":", 2)
		if len(kv) != 2 {
			continue
		}
		n, _ := strconv.Atoi(kv[1])
		switch kv[0] {
		case "activeQ":
			active = n
		case "backoffQ":
			backoff = n
		case "pendingPodGroupMemberPods", "incompletePodGroupPods":
			waiting += n
		}
	}
	return active, backoff, waiting, names
}

// delivered waits (bounded) until the scheduler has seen the event's changes:
// its cache holds exactly the bound pods the fake holds, and every created
// pod is in its queue with its group complete.
func (d *driver) delivered(created []string) {
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		ok := true
		if n, err := d.sched.Cache.PodCount(); err != nil || n != d.boundInFake() {
			ok = false
		}
		if ok {
			_, _, waiting, names := d.queueCounts()
			for _, p := range created {
				if !names[p] {
					ok = false
					break
				}
			}
			ok = ok && waiting == 0
		}
		if ok {
			// The delete handler removes a pod from the cache, then moves
			// the entities it may help; give it the moment it takes.
			time.Sleep(3 * time.Millisecond)
			return
		}
		time.Sleep(time.Millisecond)
	}
	d.out.TimedOut = true
}

func (d *driver) boundInFake() int {
	objs, err := d.client.Tracker().List(v1.SchemeGroupVersion.WithResource("pods"), v1.SchemeGroupVersion.WithKind("Pod"), "default")
	if err != nil {
		return -1
	}
	n := 0
	for _, p := range objs.(*v1.PodList).Items {
		if p.Spec.NodeName != "" {
			n++
		}
	}
	return n
}

// settle lets the scheduler schedule until it has nothing left it could
// bind at this time, and gives the workloads that started (every pod of
// theirs bound during it). It plays rounds: the active queue drained, the
// bindings and deletions of the round waited for; a round in which the
// scheduler preempted is followed by another, with the clock stepped past
// every backoff, so that the preemptor (and what failed before the victims
// were gone) is tried again. A binding alone only takes capacity, which
// makes no gang of these instances fit that did not fit before.
func (d *driver) settle(now float64) ([]int, error) {
	deadline := time.Now().Add(20 * time.Second)
	for {
		before := d.preemptions()
		for {
			active, _, _, _ := d.queueCounts()
			if active == 0 || time.Now().After(deadline) {
				break
			}
			d.sched.ScheduleOne(d.ctx)
			// Entities attempted one after another get later timestamps, as
			// they would in wall-clock time.
			d.clock.Step(time.Millisecond)
		}
		d.quiet(deadline)
		d.rec.mu.Lock()
		evicted := d.rec.evicted
		d.rec.evicted = map[string]bool{}
		d.rec.mu.Unlock()
		if len(evicted) > 0 {
			if err := d.restart(evicted); err != nil {
				return nil, err
			}
		}
		if time.Now().After(deadline) {
			d.out.TimedOut = true
			break
		}
		if d.preemptions() == before && len(evicted) == 0 {
			break
		}
		d.flushBackoff()
	}
	return d.started(now), nil
}

func (d *driver) preemptions() int {
	d.rec.mu.Lock()
	defer d.rec.mu.Unlock()
	return d.rec.preemptions
}

func (d *driver) activity() int {
	d.rec.mu.Lock()
	defer d.rec.mu.Unlock()
	return d.rec.activity
}

// quiet waits (bounded) until no binding is in flight and nothing was bound
// or deleted for a while: the binding goroutines and the preemption
// executor's deletions are asynchronous.
func (d *driver) quiet(deadline time.Time) {
	const still = 20 * time.Millisecond
	last, seen := time.Now(), -1
	for time.Now().Before(deadline) {
		activity := d.activity()
		active, _, _, _ := d.queueCounts()
		if activity != seen || len(d.sched.Cache.Dump().AssumedPods) > 0 || active > 0 || d.halfBound() {
			seen, last = activity, time.Now()
			if active > 0 {
				return
			}
		}
		if time.Since(last) > still {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// halfBound says whether some workload has some of its pods bound and
// others not: the binding goroutines of a gang are not all done yet.
func (d *driver) halfBound() bool {
	d.rec.mu.Lock()
	bound := map[string]bool{}
	for _, b := range d.rec.bindings {
		bound[b.Pod] = true
	}
	d.rec.mu.Unlock()
	for _, w := range d.workloads {
		n := 0
		for _, p := range w.pods {
			if bound[p] {
				n++
			}
		}
		if n > 0 && n < len(w.pods) {
			return true
		}
	}
	return false
}

// flushBackoff steps the scheduler's clock past the longest backoff (10 s
// times the square root of a group's pods, 8 at most here) and waits
// (bounded) until the queue has moved every entity of its backoff queue to
// the active queue.
func (d *driver) flushBackoff() {
	d.clock.Step(2 * time.Minute)
	limit := time.Now().Add(2 * time.Second)
	for time.Now().Before(limit) {
		if _, backoff, _, _ := d.queueCounts(); backoff == 0 {
			return
		}
		time.Sleep(time.Millisecond)
	}
	d.out.TimedOut = true
}

// started marks the workloads whose pods are all bound now and were not
// running: they start at now.
func (d *driver) started(now float64) []int {
	d.rec.mu.Lock()
	defer d.rec.mu.Unlock()
	index := map[string]int{}
	for k, b := range d.rec.bindings {
		if _, ok := index[b.Pod]; !ok || b.Time == now {
			index[b.Pod] = k
		}
	}
	var out []int
	for i, w := range d.workloads {
		if w.running || len(w.pods) == 0 {
			continue
		}
		first, all, some := -1, true, false
		for _, p := range w.pods {
			k, ok := index[p]
			if !ok || d.rec.bindings[k].Time != now {
				all = false
				continue
			}
			some = true
			if first < 0 || k < first {
				first = k
			}
		}
		if some && !all {
			d.out.Partial = true
		}
		if all {
			w.running, w.start, w.firstAt = true, now, first
			out = append(out, i)
		}
	}
	return out
}

// restart makes every preempted workload again, as its controller would:
// what is left of it deleted, its groups and pods made anew (the pods under
// new names); its end is cancelled.
func (d *driver) restart(evicted map[string]bool) error {
	names := make([]string, 0, len(evicted))
	for name := range evicted {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		for _, w := range d.workloads {
			if w.spec.Name != name {
				continue
			}
			d.out.Preempted[name]++
			w.running = false
			w.epoch++
			if _, err := d.remove(w); err != nil {
				return err
			}
			w.restarts++
			made, err := d.create(w)
			if err != nil {
				return err
			}
			d.delivered(made)
		}
	}
	return nil
}
