package harness

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/reclaim-sol/reclaim/backend/localvalidator"
	"github.com/reclaim-sol/reclaim/backend/pkg/npmci"
)

const (
	// DefaultBaseImage is the base the validator image builds on: a debootstrap
	// bookworm root with Debian's nodejs, imported by .ci/docker.sh.
	DefaultBaseImage = "reclaim/debian-bookworm-node:local"
	// ImageRepo names the locally built validator images; the tag is a hash of the
	// build inputs, so a changed validator builds a new image and an unchanged one
	// is reused.
	ImageRepo = "reclaim/local-validator"

	// rpcPort and wsPort are the container's ports: the validator's usual
	// ones (localvalidator.RPCPort and PubSubPort, held to them by a
	// test), where its image starts it.
	rpcPort = "8899/tcp"
	wsPort  = "8900/tcp"
)

// repoRoot is the absolute path of the repository.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// ValidatorDir is the absolute path of the local validator
// (localvalidator.Dir).
func ValidatorDir() string {
	return filepath.Join(repoRoot(), localvalidator.Dir)
}

func dockerAvailable() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	provider, err := testcontainers.ProviderDocker.GetProvider()
	if err != nil {
		return err
	}
	defer provider.Close()
	return provider.Health(ctx)
}

// Start runs a validator container and waits until getHealth answers "ok". It builds
// the local validator image first when E2E_VALIDATOR_IMAGE is unset and the image for
// the current sources does not exist. Build output goes to logw.
func Start(ctx context.Context, logw io.Writer) (*Validator, error) {
	image := os.Getenv("E2E_VALIDATOR_IMAGE")
	if image == "" {
		var err error
		if image, err = EnsureImage(ctx, logw); err != nil {
			return nil, err
		}
	}
	programs, err := programFiles()
	if err != nil {
		return nil, err
	}
	req := testcontainers.ContainerRequest{
		Image:        image,
		ExposedPorts: []string{rpcPort, wsPort},
		Files:        programs,
		WaitingFor: wait.ForHTTP("/").WithPort(rpcPort).WithMethod("POST").
			WithHeaders(map[string]string{"Content-Type": "application/json"}).
			WithBody(strings.NewReader(localvalidator.HealthRequest)).
			WithResponseMatcher(func(body io.Reader) bool {
				b, _ := io.ReadAll(body)
				return strings.Contains(string(b), localvalidator.HealthyAnswer)
			}).
			WithPollInterval(50 * time.Millisecond).
			WithStartupTimeout(2 * time.Minute),
	}
	req.Env = map[string]string{}
	if len(programs) > 0 {
		req.Env[ProgramsDirEnv] = containerProgramsDir
	}
	if os.Getenv(ProfileEnv) != "" {
		req.Env[ProfileEnv] = "1"
	}
	start := time.Now()
	c, err := testcontainers.GenericContainer(ctx, testcontainers.GenericContainerRequest{ContainerRequest: req, Started: true})
	if err != nil {
		if c != nil {
			_ = c.Terminate(context.Background())
		}
		return nil, fmt.Errorf("start %s: %w", image, err)
	}
	healthy := time.Since(start)
	url, err := c.PortEndpoint(ctx, rpcPort, "http")
	if err != nil {
		_ = c.Terminate(context.Background())
		return nil, fmt.Errorf("rpc endpoint: %w", err)
	}
	wsURL, err := c.PortEndpoint(ctx, wsPort, "ws")
	if err != nil {
		_ = c.Terminate(context.Background())
		return nil, fmt.Errorf("ws endpoint: %w", err)
	}
	fmt.Fprintf(logw, "harness: validator %s healthy at %s, %s after container start\n", image, url, healthy.Round(time.Millisecond))
	return &Validator{RPC: rpc.New(url), URL: url, WSURL: wsURL, Image: image, StartToHealthy: healthy, container: c}, nil
}

// ProfileEnv names the variable that, set, makes the local validator log
// every JSON-RPC request it answers with where its time went (server.js
// --profile): read them with docker logs on the running container.
const ProfileEnv = "VALIDATOR_PROFILE"

// ProgramsDirEnv names a host directory of <programId>.so files that the
// validator loads at startup (Metaplex Token Metadata, MPL Core, Bubblegum,
// ...): its .so files are copied into the container, whose server.js reads
// the same variable. Unset, the checkout's ../shared/programs is used.
const ProgramsDirEnv = "E2E_PROGRAMS_DIR"

const containerProgramsDir = "/programs"

// ProgramsDir is the host directory of ProgramsDirEnv, else the shared
// programs beside the checkout when they exist, else "".
func ProgramsDir() string {
	if dir := os.Getenv(ProgramsDirEnv); dir != "" {
		return dir
	}
	shared := filepath.Join(repoRoot(), "..", "shared", "programs")
	if _, err := os.Stat(shared); err == nil {
		return filepath.Clean(shared)
	}
	return ""
}

// HasPrograms reports whether ProgramsDir holds <id>.so for every id.
func HasPrograms(ids ...string) bool {
	dir := ProgramsDir()
	if dir == "" {
		return false
	}
	for _, id := range ids {
		if _, err := os.Stat(filepath.Join(dir, id+".so")); err != nil {
			return false
		}
	}
	return true
}

// programFiles lists the .so files of ProgramsDir to copy into the container.
func programFiles() ([]testcontainers.ContainerFile, error) {
	dir := ProgramsDir()
	if dir == "" {
		return nil, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ProgramsDirEnv, err)
	}
	var files []testcontainers.ContainerFile
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".so") {
			continue
		}
		files = append(files, testcontainers.ContainerFile{
			HostFilePath:      filepath.Join(dir, e.Name()),
			ContainerFilePath: containerProgramsDir + "/" + e.Name(),
			FileMode:          0o644,
		})
	}
	return files, nil
}

// EnsureImage returns the local validator image for the current sources, building it
// when it does not exist (npm modules are installed first if missing).
func EnsureImage(ctx context.Context, logw io.Writer) (string, error) {
	dir := ValidatorDir()
	if err := EnsureNodeModules(ctx, dir, logw); err != nil {
		return "", err
	}
	base := os.Getenv("E2E_BASE_IMAGE")
	if base == "" {
		base = DefaultBaseImage
	}
	tag, err := sourceHash(dir, base)
	if err != nil {
		return "", err
	}
	image := ImageRepo + ":" + tag
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return "", fmt.Errorf("docker client: %w", err)
	}
	defer cli.Close()
	if _, err := cli.ImageInspect(ctx, image); err == nil {
		return image, nil
	}
	if _, err := cli.ImageInspect(ctx, base); err != nil {
		return "", fmt.Errorf("base image %s not found (build it with .ci/docker.sh, or set E2E_BASE_IMAGE to an image with node >= 18): %w", base, err)
	}
	provider, err := testcontainers.NewDockerProvider()
	if err != nil {
		return "", err
	}
	defer provider.Close()
	start := time.Now()
	req := testcontainers.ContainerRequest{FromDockerfile: testcontainers.FromDockerfile{
		Context:        dir,
		Dockerfile:     "Dockerfile",
		Repo:           ImageRepo,
		Tag:            tag,
		BuildArgs:      map[string]*string{"BASE_IMAGE": &base},
		BuildLogWriter: io.Discard,
		KeepImage:      true,
	}}
	if _, err := provider.BuildImage(ctx, &req); err != nil {
		return "", fmt.Errorf("build %s: %w", image, err)
	}
	fmt.Fprintf(logw, "harness: built %s in %s\n", image, time.Since(start).Round(time.Millisecond))
	return image, nil
}

// EnsureNodeModules runs `npm ci` in dir unless its packages are installed
// (once, however many tests and test binaries ask at the same time).
func EnsureNodeModules(ctx context.Context, dir string, logw io.Writer) error {
	if npmci.Installed(dir) {
		return nil
	}
	fmt.Fprintf(logw, "harness: npm ci in %s\n", dir)
	out, err := npmci.Ensure(ctx, dir)
	_, _ = logw.Write(out)
	return err
}

// sourceHash hashes what goes into the image: the Dockerfile, the base image name,
// package files and the validator's own sources (node_modules follows the lockfile).
func sourceHash(dir, base string) (string, error) {
	var files []string
	for _, name := range []string{"Dockerfile", ".dockerignore", "package.json", "package-lock.json", "server.js"} {
		files = append(files, filepath.Join(dir, name))
	}
	err := filepath.WalkDir(filepath.Join(dir, "lib"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		return "", err
	}
	sort.Strings(files)
	h := sha256.New()
	fmt.Fprintf(h, "base=%s\n", base)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", filepath.Base(f), len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}
