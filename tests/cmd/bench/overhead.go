package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	rpcplugin "github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	rpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/types/known/structpb"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/controlplane"
	"github.com/endpoints-provider/pulumi-endpoints/tests/harness/plugin"
)

const (
	overheadObjects  = 500
	overheadInFlight = 10
)

var operations = []string{"create", "read", "update", "delete"}

// latencies are per-operation latencies of one way of doing the work.
type latencies map[string][]time.Duration

// meter runs one operation's calls (run) and records what they cost besides time.
type meter func(op string, run func() error) error

// forAll runs fn for i in [0, n) with inFlight calls at once and records each call's
// latency under op.
func forAll(n, inFlight int, lat latencies, op string, fn func(i int) error) error {
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		errs []error
		jobs = make(chan int)
	)
	for range inFlight {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				start := time.Now()
				err := fn(i)
				d := time.Since(start)
				mu.Lock()
				lat[op] = append(lat[op], d)
				if err != nil {
					errs = append(errs, fmt.Errorf("%s %d: %w", op, i, err))
				}
				mu.Unlock()
			}
		}()
	}
	for i := range n {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return errors.Join(errs...)
}

func sliceObject(ns string, i int, port int32) *discoveryv1.EndpointSlice {
	name, proto, p := "http", corev1.ProtocolTCP, port
	return &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Name: fmt.Sprintf("s-%d", i), Namespace: ns},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{fmt.Sprintf("10.2.%d.%d", i/250, i%250+1)}}},
		Ports:       []discoveryv1.EndpointPort{{Name: &name, Port: &p, Protocol: &proto}},
	}
}

// clientGo does the four operations directly with client-go, with the same semantics
// as the provider: update reads then writes; delete waits until the object is gone.
func clientGo(ctx context.Context, cs kubernetes.Interface, ns string, m meter) (latencies, error) {
	lat := latencies{}
	api := cs.DiscoveryV1().EndpointSlices(ns)
	name := func(i int) string { return fmt.Sprintf("s-%d", i) }
	steps := map[string]func(int) error{
		"create": func(i int) error {
			_, err := api.Create(ctx, sliceObject(ns, i, 80), metav1.CreateOptions{FieldManager: "bench"})
			return err
		},
		"read": func(i int) error {
			_, err := api.Get(ctx, name(i), metav1.GetOptions{})
			return err
		},
		"update": func(i int) error {
			live, err := api.Get(ctx, name(i), metav1.GetOptions{})
			if err != nil {
				return err
			}
			live.Ports = sliceObject(ns, i, 8080).Ports
			_, err = api.Update(ctx, live, metav1.UpdateOptions{FieldManager: "bench"})
			return err
		},
		"delete": func(i int) error {
			policy := metav1.DeletePropagationBackground
			if err := api.Delete(ctx, name(i), metav1.DeleteOptions{PropagationPolicy: &policy}); err != nil {
				return err
			}
			live, err := api.Get(ctx, name(i), metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return nil
			}
			if err != nil {
				return err
			}
			w, err := api.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name(i),
				ResourceVersion: live.ResourceVersion})
			if err != nil {
				return err
			}
			defer w.Stop()
			for e := range w.ResultChan() {
				if e.Type == watch.Deleted {
					return nil
				}
			}
			return fmt.Errorf("watch of %s ended before it was deleted", name(i))
		},
	}
	for _, op := range operations {
		if err := m(op, func() error { return forAll(overheadObjects, overheadInFlight, lat, op, steps[op]) }); err != nil {
			return nil, err
		}
	}
	return lat, nil
}

func sliceInputs(ns string, i, port int) (*structpb.Struct, error) {
	return rpcplugin.MarshalProperties(resource.NewPropertyMapFromMap(map[string]any{
		"metadata":    map[string]any{"name": fmt.Sprintf("s-%d", i), "namespace": ns},
		"addressType": "IPv4",
		"endpoints":   []any{map[string]any{"addresses": []any{fmt.Sprintf("10.2.%d.%d", i/250, i%250+1)}}},
		"ports":       []any{map[string]any{"name": "http", "port": port, "protocol": "TCP"}},
	}), rpcplugin.MarshalOptions{})
}

// throughProvider does the four operations through the plugin's gRPC interface.
func throughProvider(ctx context.Context, p *plugin.Plugin, ns string, m meter) (latencies, error) {
	lat := latencies{}
	urn := func(i int) string {
		return string(resource.NewURN("bench", "bench", "", spec.EndpointSliceToken,
			fmt.Sprintf("s-%d", i)))
	}
	id := func(i int) string { return fmt.Sprintf("%s/s-%d", ns, i) }
	state := make([]*structpb.Struct, overheadObjects)
	inputs := make([][2]*structpb.Struct, overheadObjects)
	for i := range overheadObjects {
		a, err := sliceInputs(ns, i, 80)
		if err != nil {
			return nil, err
		}
		b, err := sliceInputs(ns, i, 8080)
		if err != nil {
			return nil, err
		}
		inputs[i] = [2]*structpb.Struct{a, b}
	}
	steps := map[string]func(int) error{
		"create": func(i int) error {
			resp, err := p.Create(ctx, &rpc.CreateRequest{Urn: urn(i), Properties: inputs[i][0]})
			if err == nil {
				state[i] = resp.GetProperties()
			}
			return err
		},
		"read": func(i int) error {
			_, err := p.Read(ctx, &rpc.ReadRequest{Id: id(i), Urn: urn(i), Properties: state[i], Inputs: inputs[i][0]})
			return err
		},
		"update": func(i int) error {
			resp, err := p.Update(ctx, &rpc.UpdateRequest{Id: id(i), Urn: urn(i), Olds: state[i],
				OldInputs: inputs[i][0], News: inputs[i][1]})
			if err == nil {
				state[i] = resp.GetProperties()
			}
			return err
		},
		"delete": func(i int) error {
			_, err := p.Delete(ctx, &rpc.DeleteRequest{Id: id(i), Urn: urn(i), Properties: state[i]})
			return err
		},
	}
	for _, op := range operations {
		if err := m(op, func() error { return forAll(overheadObjects, overheadInFlight, lat, op, steps[op]) }); err != nil {
			return nil, err
		}
	}
	return lat, nil
}

// costs are what one way of doing the work cost per call of each operation, besides
// time: API requests (which the load does not change) and, through the plugin, its
// CPU time.
type costs struct {
	// requests are the requests for endpointslices per call.
	requests map[string]float64
	// other are the requests for every other resource (and for none: discovery) per
	// call, by every client: the control plane's own controllers add a few.
	other map[string]float64
	// cpu is the plugin's CPU time (user + system) per call; empty for client-go.
	cpu map[string]time.Duration
}

// costMeter records costs of each operation into c: the API server's request counts
// before and after, and the CPU time of process pid (0: none).
func costMeter(ctx context.Context, cp *controlplane.ControlPlane, pid int, c *costs) meter {
	*c = costs{requests: map[string]float64{}, other: map[string]float64{}, cpu: map[string]time.Duration{}}
	return func(op string, run func() error) error {
		before, err := requestCounts(ctx, cp)
		if err != nil {
			return err
		}
		var cpuBefore time.Duration
		if pid > 0 {
			if cpuBefore, err = cpuTime(pid); err != nil {
				return err
			}
		}
		if err := run(); err != nil {
			return err
		}
		if pid > 0 {
			cpuAfter, err := cpuTime(pid)
			if err != nil {
				return err
			}
			c.cpu[op] = (cpuAfter - cpuBefore) / overheadObjects
		}
		after, err := requestCounts(ctx, cp)
		if err != nil {
			return err
		}
		var slices, other int
		for resource, n := range after {
			if resource == "endpointslices" {
				slices += n - before[resource]
			} else {
				other += n - before[resource]
			}
		}
		c.requests[op] = float64(slices) / overheadObjects
		c.other[op] = float64(other) / overheadObjects
		return nil
	}
}
