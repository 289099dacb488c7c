/* SPDX-License-Identifier: BSD-3-Clause
 * hipgw's commands to a running gateway: a client of DPDK telemetry's unix
 * socket (SOCK_SEQPACKET; the gateway greets with one JSON message, then
 * answers each command with {"COMMAND": value}).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>

#include "hipgw_ctl.h"

#define CTL_REPLY_MAX  16384   /* bytes of a telemetry reply (DPDK's own limit) */
#define CTL_TIMEOUT_S  10      /* s to wait for the greeting and for the answer */
#define CTL_CMD_MAX    256     /* bytes of the command sent */
#define CTL_RUNTIME_DIR "/var/run/dpdk"

static void
ctl_usage(FILE *f)
{
	fprintf(f, "usage: hipgw set-address [--socket PATH | --file-prefix NAME] PORT "
		   "ADDRESS/LENGTH [GATEWAY]\n"
		   "  PATH: the gateway's DPDK telemetry socket (default "
		   CTL_RUNTIME_DIR "/NAME/dpdk_telemetry.v2, NAME rte: EAL's --file-prefix)\n");
}

/* Send cmd on the telemetry socket path; the answer into buf. Returns its
 * length, or -1 with the reason printed. */
static ssize_t
ctl_ask(const char *path, const char *cmd, char *buf, size_t len)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = CTL_TIMEOUT_S };
	ssize_t n;
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "hipgw: socket path too long: %s\n", path);
		return -1;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) != 0 ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		fprintf(stderr, "hipgw: %s: %s (is hipgw running with this telemetry socket?)\n",
			path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	n = recv(fd, buf, len - 1, 0);             /* the greeting */
	if (n > 0 && send(fd, cmd, strlen(cmd), 0) == (ssize_t)strlen(cmd))
		n = recv(fd, buf, len - 1, 0);
	else
		n = -1;
	if (n <= 0) {
		fprintf(stderr, "hipgw: %s: no answer\n", path);
		close(fd);
		return -1;
	}
	buf[n] = '\0';
	close(fd);
	return n;
}

/* The string value of "key" in the JSON text j (no escapes inside: ours are
 * plain), into out. Returns 0, or -1 when absent. */
static int
json_str(const char *j, const char *key, char *out, size_t len)
{
	char k[64];
	const char *p, *e;

	snprintf(k, sizeof(k), "\"%s\"", key);
	p = strstr(j, k);
	if (p == NULL)
		return -1;
	p += strlen(k);
	while (*p == ' ' || *p == ':')
		p++;
	if (*p++ != '"' || (e = strchr(p, '"')) == NULL)
		return -1;
	snprintf(out, len, "%.*s", (int)(e - p), p);
	return 0;
}

int
hipgw_ctl_set_address(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "file-prefix", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *sock = NULL, *prefix = "rte";
	char path[sizeof(((struct sockaddr_un *)0)->sun_path) + 64], cmd[CTL_CMD_MAX];
	char reply[CTL_REPLY_MAX], result[16], msg[256];
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 's':
			sock = optarg;
			break;
		case 'p':
			prefix = optarg;
			break;
		case 'h':
			ctl_usage(stdout);
			return 0;
		default:
			ctl_usage(stderr);
			return 2;
		}
	}
	if (argc - optind < 2 || argc - optind > 3 || strchr(prefix, '/') != NULL) {
		ctl_usage(stderr);
		return 2;
	}
	for (int i = optind; i < argc; i++)
		if (strchr(argv[i], ',') != NULL || argv[i][0] == '\0') {
			fprintf(stderr, "hipgw: set-address: '%s': no commas or empty words\n",
				argv[i]);
			return 2;
		}
	if (sock == NULL) {
		snprintf(path, sizeof(path), CTL_RUNTIME_DIR "/%s/dpdk_telemetry.v2", prefix);
		sock = path;
	}
	if ((size_t)snprintf(cmd, sizeof(cmd), "/hipgw/set_address,%s,%s%s%s", argv[optind],
			     argv[optind + 1], argc - optind == 3 ? "," : "",
			     argc - optind == 3 ? argv[optind + 2] : "") >= sizeof(cmd)) {
		fprintf(stderr, "hipgw: set-address: arguments too long\n");
		return 2;
	}
	if (ctl_ask(sock, cmd, reply, sizeof(reply)) < 0)
		return 1;
	if (json_str(reply, "result", result, sizeof(result)) != 0 ||
	    json_str(reply, "message", msg, sizeof(msg)) != 0) {
		/* null: an older hipgw without the command, or it refused it */
		fprintf(stderr, "hipgw: set-address: unexpected answer: %.200s\n", reply);
		return 1;
	}
	if (strcmp(result, "ok") != 0) {
		fprintf(stderr, "hipgw: set-address: %s\n", msg);
		return 1;
	}
	printf("%s: %s\n", argv[optind], msg);
	return 0;
}
