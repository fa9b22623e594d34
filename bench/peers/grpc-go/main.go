// grpc-echo: a unary gRPC echo peer for the xrpc benchmark suite, with no .proto and no protoc.
//
// Messages are raw bytes carried by a codec registered under the content subtype "raw"
// (application/grpc+raw); the service is a hand-written grpc.ServiceDesc with one unary method,
// /echo.Echo/Echo, that returns its request.
//
//	grpc-echo server -addr 127.0.0.1:50151 [-workers N]
//	grpc-echo client -addr 127.0.0.1:50151 [-conns 4] [-inflight 16] [-duration 2s] [-warmup 500ms]
//	                 [-payload 1] [-target grpc-go]
//
// -workers N maps to grpc.NumStreamWorkers(N), the option added by grpc-go PR #3204; 0 leaves
// it off (one goroutine per stream, the default). The client opens -conns ClientConns (one TCP
// connection each) and keeps -inflight calls outstanding on each, so conns*inflight requests are
// in flight. It prints one JSON line: the suite's measurement schema.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"net"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
)

// rawCodec passes []byte messages through untouched.
type rawCodec struct{}

func (rawCodec) Name() string { return "raw" }

func (rawCodec) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case *[]byte:
		return *m, nil
	case []byte:
		return m, nil
	}
	return nil, fmt.Errorf("raw codec: cannot marshal %T", v)
}

func (rawCodec) Unmarshal(data []byte, v any) error {
	m, ok := v.(*[]byte)
	if !ok {
		return fmt.Errorf("raw codec: cannot unmarshal into %T", v)
	}
	// data may be reused by grpc after Unmarshal returns.
	*m = append((*m)[:0], data...)
	return nil
}

const method = "/echo.Echo/Echo"

type echoServer interface{}

type echoImpl struct{}

func echoHandler(_ any, ctx context.Context, dec func(any) error, interceptor grpc.UnaryServerInterceptor) (any, error) {
	var in []byte
	if err := dec(&in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return &in, nil
	}
	info := &grpc.UnaryServerInfo{Server: nil, FullMethod: method}
	return interceptor(ctx, &in, info, func(_ context.Context, req any) (any, error) { return req, nil })
}

var serviceDesc = grpc.ServiceDesc{
	ServiceName: "echo.Echo",
	HandlerType: (*echoServer)(nil),
	Methods:     []grpc.MethodDesc{{MethodName: "Echo", Handler: echoHandler}},
	Metadata:    "echo.proto",
}

func server(args []string) {
	fs := flag.NewFlagSet("server", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:50151", "listen address")
	workers := fs.Uint("workers", 0, "grpc.NumStreamWorkers(N); 0 = option not set")
	_ = fs.Parse(args)

	lis, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatalf("listen: %v", err)
	}
	var opts []grpc.ServerOption
	if *workers > 0 {
		opts = append(opts, grpc.NumStreamWorkers(uint32(*workers)))
	}
	s := grpc.NewServer(opts...)
	s.RegisterService(&serviceDesc, echoImpl{})
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-sig
		s.Stop()
	}()
	log.Printf("grpc-echo server on %s, GOMAXPROCS %d, NumStreamWorkers %d", lis.Addr(), runtime.GOMAXPROCS(0), *workers)
	if err := s.Serve(lis); err != nil {
		log.Fatalf("serve: %v", err)
	}
}

type result struct {
	Workload    string  `json:"workload"`
	Target      string  `json:"target"`
	Concurrency int     `json:"concurrency"`
	Connections int     `json:"connections"`
	QPS         float64 `json:"qps"`
	P50         float64 `json:"p50_us"`
	P99         float64 `json:"p99_us"`
	P999        float64 `json:"p999_us"`
	Errors      int64   `json:"errors"`
	Requests    int     `json:"requests"`
	DurationS   float64 `json:"duration_s"`
	Payload     int     `json:"payload_bytes"`
	Loadgen     string  `json:"loadgen"`
}

func client(args []string) {
	fs := flag.NewFlagSet("client", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:50151", "server address")
	conns := fs.Int("conns", 4, "connections (one ClientConn each)")
	inflight := fs.Int("inflight", 16, "calls in flight per connection")
	duration := fs.Duration("duration", 2*time.Second, "measured time")
	warmup := fs.Duration("warmup", 500*time.Millisecond, "unmeasured time before it")
	payload := fs.Int("payload", 1, "request size in bytes")
	target := fs.String("target", "grpc-go", "target label in the JSON line")
	_ = fs.Parse(args)

	ccs := make([]*grpc.ClientConn, *conns)
	for i := range ccs {
		cc, err := grpc.NewClient("passthrough:///"+*addr,
			grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithDefaultCallOptions(grpc.CallContentSubtype("raw")))
		if err != nil {
			log.Fatalf("client: %v", err)
		}
		ccs[i] = cc
		// One call to connect and check the server before the clock starts.
		var out []byte
		in := make([]byte, *payload)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := cc.Invoke(ctx, method, &in, &out, grpc.WaitForReady(true)); err != nil {
			log.Fatalf("first call: %v", err)
		}
		cancel()
		if len(out) != *payload {
			log.Fatalf("echo returned %d bytes, sent %d", len(out), *payload)
		}
	}

	start := time.Now()
	warmEnd := start.Add(*warmup)
	end := warmEnd.Add(*duration)
	n := *conns * *inflight
	lats := make([][]int64, n)
	errs := make([]int64, n)
	var wg sync.WaitGroup
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			cc := ccs[w%*conns]
			in := make([]byte, *payload)
			in[0] = byte(w)
			var out []byte
			mine := make([]int64, 0, 1<<14)
			ctx := context.Background()
			for {
				t0 := time.Now()
				if t0.After(end) {
					break
				}
				err := cc.Invoke(ctx, method, &in, &out)
				t1 := time.Now()
				if t1.Before(warmEnd) || t1.After(end) {
					continue
				}
				if err != nil || len(out) != len(in) {
					errs[w]++
					continue
				}
				mine = append(mine, int64(t1.Sub(t0)))
			}
			lats[w] = mine
		}(w)
	}
	wg.Wait()
	for _, cc := range ccs {
		_ = cc.Close()
	}

	var all []int64
	var nerr int64
	for w := range lats {
		all = append(all, lats[w]...)
		nerr += errs[w]
	}
	slices.Sort(all)
	pct := func(q float64) float64 {
		if len(all) == 0 {
			return 0
		}
		i := int(math.Ceil(q*float64(len(all)))) - 1
		i = max(0, min(i, len(all)-1))
		return math.Round(float64(all[i])/100) / 10 // ns -> µs, one decimal
	}
	r := result{
		Workload: "echo", Target: *target, Concurrency: n, Connections: *conns,
		QPS: math.Round(float64(len(all)) / duration.Seconds()), P50: pct(0.50), P99: pct(0.99), P999: pct(0.999),
		Errors: nerr, Requests: len(all), DurationS: duration.Seconds(), Payload: *payload,
		Loadgen: "grpc-echo client (" + runtime.Version() + ")",
	}
	b, _ := json.Marshal(r)
	fmt.Println(string(b))
}

func main() {
	encoding.RegisterCodec(rawCodec{})
	log.SetFlags(0)
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: grpc-echo server|client [flags]")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "server":
		server(os.Args[2:])
	case "client":
		client(os.Args[2:])
	default:
		fmt.Fprintln(os.Stderr, "usage: grpc-echo server|client [flags]")
		os.Exit(2)
	}
}
