package clients_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisServer is the real redis-server the package's tests share, started
// by TestMain on a free loopback port.
type redisServer struct {
	port int
	dir  string
	cmd  *exec.Cmd
}

var shared *redisServer

// freePort asks the kernel for a free loopback port.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func startRedis(dir string, port int) (*redisServer, error) {
	path, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, fmt.Errorf("redis-server is not installed (Debian: apt-get install redis-server): %v", err)
	}
	cmd := exec.Command(path, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", dir, "--protected-mode", "no")
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	// redis-server says when it accepts connections.
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		said := false
		for sc.Scan() {
			if !said && strings.Contains(sc.Text(), "Ready to accept connections") {
				said = true
				ready <- true
			}
		}
		if !said {
			ready <- false
		}
	}()
	if !<-ready {
		_ = cmd.Wait()
		return nil, fmt.Errorf("redis-server on port %d did not start", port)
	}
	return &redisServer{port: port, dir: dir, cmd: cmd}, nil
}

func (s *redisServer) stop() {
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
}

// restart stops the server and starts a new one on the same port: its
// counters are gone, as after a restart without persistence.
func (s *redisServer) restart(t *testing.T) {
	t.Helper()
	s.stop()
	n, err := startRedis(s.dir, s.port)
	if err != nil {
		t.Fatal(err)
	}
	s.cmd = n.cmd
}

func (s *redisServer) addr() string { return fmt.Sprintf("127.0.0.1:%d", s.port) }

// flush empties the server between tests.
func (s *redisServer) flush(t *testing.T) {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: s.addr()})
	defer c.Close()
	if err := c.FlushAll(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "thinkgate-clients-redis-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	port, err := freePort()
	if err == nil {
		shared, err = startRedis(dir, port)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	shared.stop()
	gatewayBinary.cleanup()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// gatewayBinary is cmd/caddy built once for the tests that run a second,
// separate gateway process.
var gatewayBinary builtGateway

type builtGateway struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func (b *builtGateway) cleanup() {
	if b.dir != "" {
		_ = os.RemoveAll(b.dir)
	}
}

// buildGateway builds cmd/caddy (Go's build cache makes it quick after the
// first time) and returns the binary's path.
func buildGateway(t *testing.T) string {
	t.Helper()
	b := &gatewayBinary
	b.once.Do(func() {
		b.dir, b.err = os.MkdirTemp("", "thinkgate-clients-caddy-")
		if b.err != nil {
			return
		}
		b.path = filepath.Join(b.dir, "caddy")
		cmd := exec.Command("go", "build", "-o", b.path, "./cmd/caddy")
		cmd.Dir = "../.."
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.err = fmt.Errorf("go build ./cmd/caddy: %v\n%s", err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// runGateway runs the built gateway with caddyfile until the test ends,
// and returns once it answers on port.
func runGateway(t *testing.T, caddyfile string, port int) {
	t.Helper()
	bin := buildGateway(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "Caddyfile")
	if err := os.WriteFile(cfg, []byte(caddyfile), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "run", "--config", cfg, "--adapter", "caddyfile")
	cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+dir, "XDG_CONFIG_HOME="+dir, "HOME="+dir)
	logf, err := os.Create(filepath.Join(dir, "caddy.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		logf.Close()
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case err := <-exited:
			b, _ := os.ReadFile(logf.Name())
			t.Fatalf("the second gateway exited: %v\n%s", err, b)
		default:
		}
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(logf.Name())
			t.Fatalf("the second gateway does not listen on %d:\n%s", port, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
