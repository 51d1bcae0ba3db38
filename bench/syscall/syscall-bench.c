// SPDX-License-Identifier: GPL-2.0
/*
 * What a read() costs: the /init of a minimal initramfs, booted under QEMU
 * TCG with -icount shift=0,sleep=off, where the guest's TSC advances one
 * tick per executed instruction.  Each system call below is timed with
 * rdtsc around the call, many times; the median is its cost in
 * instructions, user entry and exit included.  ci/syscall-bench.sh boots it
 * on the base and the series kernel and compares.
 *
 * Every call's result is checked (bytes and contents), so that a failing
 * call cannot pass for a cheap one.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/reboot.h>
#include <sys/sendfile.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define ITERS	200

static unsigned long iters = ITERS;

static void fail(const char *what)
{
	printf("syscall-bench: FAIL %s: %s\n", what, strerror(errno));
	fflush(stdout);
	sync();
	reboot(RB_AUTOBOOT);
	_exit(1);
}

static inline uint64_t tsc(void)
{
	uint32_t lo, hi;

	asm volatile("rdtsc" : "=a"(lo), "=d"(hi) :: "memory");
	return (uint64_t)hi << 32 | lo;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t *samples;

static void report(const char *name, unsigned long n)
{
	qsort(samples, n, sizeof(*samples), cmp_u64);
	printf("syscall name=%s unit=insns n=%lu median=%llu min=%llu max=%llu\n",
	       name, n, (unsigned long long)samples[n / 2],
	       (unsigned long long)samples[0], (unsigned long long)samples[n - 1]);
	fflush(stdout);
}

/* time(EXPR) as one sample: the instructions around one call */
#define SAMPLE(k, expr) do {			\
		uint64_t t0 = tsc();		\
		long r_ = (expr);		\
		samples[k] = tsc() - t0;	\
		ret = r_;			\
	} while (0)

static unsigned char wbuf[65536], rbuf[65536];

/*
 * The windows of the read cases, for the instruction-counting QEMU plugin
 * of ci/syscall-bench.sh (bench/syscall/insn_groups.c): it counts, per
 * group of kernel functions, the instructions executed between the first
 * instruction of syscall_bench_window_open() and that of
 * syscall_bench_window_close(), at their addresses in this static binary.
 * Each timed call has a window of its own, outside the rdtsc pair (so the
 * timed count is the same with or without them); case() names a case's
 * windows on the console before the first opens.  Without the plugin they
 * only count.  (Their bodies differ, so that the compiler cannot fold them
 * into one function.)
 */
static volatile unsigned int windows_opened, windows_closed;

static __attribute__((noinline, used)) void syscall_bench_window_open(void)
{
	windows_opened++;
}

static __attribute__((noinline, used)) void syscall_bench_window_close(void)
{
	windows_closed++;
}

static void case_windows(const char *name)
{
	printf("syscall-bench: case %s windows %u %lu\n", name, windows_opened, iters);
	fflush(stdout);
}

static void check(const char *what, long ret, long want, const void *got,
		  const void *exp)
{
	if (ret != want) {
		printf("syscall-bench: FAIL %s returned %ld, not %ld (%s)\n", what, ret, want,
		       ret < 0 ? strerror(errno) : "short");
		fflush(stdout);
		reboot(RB_AUTOBOOT);
		_exit(1);
	}
	if (got && memcmp(got, exp, want)) {
		printf("syscall-bench: FAIL %s: wrong bytes\n", what);
		fflush(stdout);
		reboot(RB_AUTOBOOT);
		_exit(1);
	}
}

/* The calibration: a loop of a known number of instructions. */
static void calibrate(void)
{
	unsigned long k;

	for (k = 0; k < iters; k++) {
		uint64_t t0 = tsc();
		unsigned long n = 10000;

		asm volatile("1: dec %0; jnz 1b" : "+r"(n));
		samples[k] = tsc() - t0;
	}
	report("calibration_20000", iters);
}

static void file_cases(void)
{
	int fd = open("/bench.dat", O_RDWR | O_CREAT | O_TRUNC, 0600);
	struct iovec iov[8];
	unsigned long k;
	long ret;
	int p[2];

	if (fd < 0)
		fail("open /bench.dat");
	for (k = 0; k < sizeof(wbuf); k++)
		wbuf[k] = (unsigned char)(k * 7 + (k >> 9));
	if (write(fd, wbuf, sizeof(wbuf)) != sizeof(wbuf))
		fail("write /bench.dat");

	for (k = 0; k < iters; k++) {
		SAMPLE(k, pread(fd, rbuf, 4096, 4096));
		check("pread 4096", ret, 4096, rbuf, wbuf + 4096);
	}
	report("pread_4096", iters);
	for (k = 0; k < iters; k++) {
		SAMPLE(k, pread(fd, rbuf, 64, 128));
		check("pread 64", ret, 64, rbuf, wbuf + 128);
	}
	report("pread_64", iters);

	for (k = 0; k < 8; k++) {
		iov[k].iov_base = rbuf + k * 512;
		iov[k].iov_len = 512;
	}
	for (k = 0; k < iters; k++) {
		SAMPLE(k, preadv(fd, iov, 8, 0));
		check("preadv 8x512", ret, 4096, rbuf, wbuf);
	}
	report("preadv_8x512", iters);
	for (k = 0; k < 8; k++)
		iov[k].iov_base = wbuf + k * 512;
	for (k = 0; k < iters; k++) {
		SAMPLE(k, pwritev(fd, iov, 8, 0));
		check("pwritev 8x512", ret, 4096, NULL, NULL);
	}
	report("pwritev_8x512", iters);
	if (pread(fd, rbuf, 4096, 0) != 4096 || memcmp(rbuf, wbuf, 4096))
		fail("pwritev wrote the wrong bytes");

	if (pipe(p))
		fail("pipe");
	for (k = 0; k < iters; k++) {
		SAMPLE(k, write(p[1], wbuf, 512));
		check("pipe write 512", ret, 512, NULL, NULL);
		if (read(p[0], rbuf, 512) != 512)
			fail("pipe drain");
	}
	report("pipe_write_512", iters);
	for (k = 0; k < iters; k++) {
		if (write(p[1], wbuf + 512, 512) != 512)
			fail("pipe fill");
		SAMPLE(k, read(p[0], rbuf, 512));
		check("pipe read 512", ret, 512, rbuf, wbuf + 512);
	}
	report("pipe_read_512", iters);

	for (k = 0; k < iters; k++) {
		loff_t off = 8192;

		SAMPLE(k, splice(fd, &off, p[1], NULL, 4096, 0));
		check("splice file->pipe 4096", ret, 4096, NULL, NULL);
		if (read(p[0], rbuf, 4096) != 4096 || memcmp(rbuf, wbuf + 8192, 4096))
			fail("splice moved the wrong bytes");
	}
	report("splice_file_pipe_4096", iters);
	for (k = 0; k < iters; k++) {
		off_t off = 12288;

		SAMPLE(k, sendfile(p[1], fd, &off, 4096));
		check("sendfile file->pipe 4096", ret, 4096, NULL, NULL);
		if (read(p[0], rbuf, 4096) != 4096 || memcmp(rbuf, wbuf + 12288, 4096))
			fail("sendfile moved the wrong bytes");
	}
	report("sendfile_file_pipe_4096", iters);
	close(p[0]);
	close(p[1]);
	close(fd);
}

/*
 * UDP on loopback with software checksums.  Loopback offers checksum
 * offload, which a corked send does not use: with MSG_MORE the data is
 * checksummed while it is copied in (csum_and_copy_from_iter_full()), the
 * datagram leaves without CHECKSUM_PARTIAL, and the receiver checksums it
 * while copying it out (skb_copy_and_csum_datagram_msg()).  A send is the
 * corked send plus the empty send that pushes it.
 */
static void udp_sendmsg_vectors(int s, int r, int nvec, size_t len,
				const char *name)
{
	struct iovec iov[64];
	struct msghdr m = { .msg_iov = iov, .msg_iovlen = nvec };
	unsigned long k;
	long ret;
	int v;

	for (v = 0; v < nvec; v++) {
		iov[v].iov_base = wbuf + 3 + v * len;
		iov[v].iov_len = len;
	}
	for (k = 0; k < iters; k++) {
		SAMPLE(k, sendmsg(s, &m, MSG_MORE) + send(s, wbuf, 0, 0));
		check(name, ret, nvec * len, NULL, NULL);
		if (recv(r, rbuf, nvec * len, 0) != (long)(nvec * len) ||
		    memcmp(rbuf, wbuf + 3, nvec * len))
			fail(name);
	}
	report(name, iters);
}

static void udp_cases(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct ifreq ifr;
	socklen_t al = sizeof(a);
	unsigned long k;
	int s, r;
	long ret;

	s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0)
		fail("socket");
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(s, SIOCGIFFLAGS, &ifr))
		fail("SIOCGIFFLAGS lo");
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr))
		fail("SIOCSIFFLAGS lo");
	r = socket(AF_INET, SOCK_DGRAM, 0);
	if (r < 0 || bind(r, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(r, (struct sockaddr *)&a, &al))
		fail("bind");
	if (connect(s, (struct sockaddr *)&a, sizeof(a)))
		fail("connect");
	for (k = 0; k < iters; k++) {
		SAMPLE(k, send(s, wbuf, 512, MSG_MORE) + send(s, wbuf, 0, 0));
		check("udp send 512", ret, 512, NULL, NULL);
		if (recv(r, rbuf, 512, 0) != 512 || memcmp(rbuf, wbuf, 512))
			fail("udp drain");
	}
	report("udp_send_512_swcsum", iters);
	/*
	 * The same corked send from 64 vectors of 8 bytes and from 8 of 64:
	 * csum_and_copy_from_iter_full() walks one segment per step.
	 */
	udp_sendmsg_vectors(s, r, 64, 8, "udp_sendmsg_64x8_swcsum");
	udp_sendmsg_vectors(s, r, 8, 64, "udp_sendmsg_8x64_swcsum");
	for (k = 0; k < iters; k++) {
		if (send(s, wbuf + 1024, 512, MSG_MORE) != 512 || send(s, wbuf, 0, 0))
			fail("udp fill");
		SAMPLE(k, recv(r, rbuf, 512, 0));
		check("udp recv 512", ret, 512, rbuf, wbuf + 1024);
	}
	report("udp_recv_512_swcsum", iters);
	close(r);
	close(s);
}

/*
 * Vectored calls with one and with two vectors.  A single vector is imported
 * as ITER_UBUF on kernels that do so, two as ITER_IOVEC; the bytes moved
 * must be the same either way.  First a byte-exact check on a pipe, a tmpfs
 * file and a UDP socket, then the one-vector calls timed.
 */
static void vec_pair(struct iovec *iov, int nv, unsigned char *buf, size_t len)
{
	iov[0].iov_base = buf;
	iov[0].iov_len = nv == 1 ? len : len / 3;
	iov[1].iov_base = buf + iov[0].iov_len;
	iov[1].iov_len = len - iov[0].iov_len;
}

static void vec_check_fd(const char *what, int wfd, int rfd, int seekable,
			 int dgram)
{
	struct iovec wv[2], rv[2];
	int nw, nr;

	for (nw = 1; nw <= 2; nw++) {
		for (nr = 1; nr <= 2; nr++) {
			size_t len = 1000 + 100 * nw + 10 * nr;
			unsigned char *src = wbuf + 333 * (nw + 2 * nr);
			char name[64];
			long ret;

			snprintf(name, sizeof(name), "%s writev %d readv %d", what, nw, nr);
			memset(rbuf, 0xee, len + 64);
			vec_pair(wv, nw, src, len);
			vec_pair(rv, nr, rbuf, len);
			if (seekable)
				ret = pwritev(wfd, wv, nw, 512);
			else
				ret = writev(wfd, wv, nw);
			check(name, ret, len, NULL, NULL);
			if (seekable)
				ret = preadv(rfd, rv, nr, 512);
			else
				ret = readv(rfd, rv, nr);
			check(name, ret, len, rbuf, src);
			if (rbuf[len] != 0xee)
				fail("readv wrote past its vectors");
			if (dgram) {
				struct msghdr m = { .msg_iov = wv, .msg_iovlen = nw };

				snprintf(name, sizeof(name), "%s sendmsg %d recvmsg %d",
					 what, nw, nr);
				memset(rbuf, 0xee, len + 64);
				check(name, sendmsg(wfd, &m, 0), len, NULL, NULL);
				m.msg_iov = rv;
				m.msg_iovlen = nr;
				check(name, recvmsg(rfd, &m, 0), len, rbuf, src);
			}
		}
	}
	printf("syscall-bench: %s: readv/writev with 1 and 2 vectors byte-exact\n", what);
	fflush(stdout);
}

static void vec_cases(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	struct iovec v;
	struct msghdr m = { .msg_iov = &v, .msg_iovlen = 1 };
	unsigned long k;
	int fd, p[2], s, r;
	long ret;

	fd = open("/vec.dat", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || pipe(p))
		fail("open /vec.dat or pipe");
	s = socket(AF_INET, SOCK_DGRAM, 0);
	r = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0 || r < 0 || bind(r, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(r, (struct sockaddr *)&a, &al) ||
	    connect(s, (struct sockaddr *)&a, sizeof(a)))
		fail("udp sockets");
	vec_check_fd("pipe", p[1], p[0], 0, 0);
	vec_check_fd("tmpfs", fd, fd, 1, 0);
	vec_check_fd("udp", s, r, 0, 1);

	if (pwrite(fd, wbuf, 8192, 0) != 8192)
		fail("fill /vec.dat");
	v.iov_base = rbuf;
	v.iov_len = 4096;
	for (k = 0; k < iters; k++) {
		SAMPLE(k, preadv(fd, &v, 1, 4096));
		check("preadv 1x4096", ret, 4096, rbuf, wbuf + 4096);
	}
	report("preadv_1x4096", iters);
	v.iov_len = 64;
	for (k = 0; k < iters; k++) {
		SAMPLE(k, preadv(fd, &v, 1, 128));
		check("preadv 1x64", ret, 64, rbuf, wbuf + 128);
	}
	report("preadv_1x64", iters);
	v.iov_base = wbuf;
	v.iov_len = 4096;
	for (k = 0; k < iters; k++) {
		SAMPLE(k, pwritev(fd, &v, 1, 0));
		check("pwritev 1x4096", ret, 4096, NULL, NULL);
	}
	report("pwritev_1x4096", iters);
	if (pread(fd, rbuf, 4096, 0) != 4096 || memcmp(rbuf, wbuf, 4096))
		fail("pwritev 1x4096 wrote the wrong bytes");

	v.iov_len = 512;
	for (k = 0; k < iters; k++) {
		v.iov_base = wbuf + 512;
		if (writev(p[1], &v, 1) != 512)
			fail("pipe fill");
		v.iov_base = rbuf;
		SAMPLE(k, readv(p[0], &v, 1));
		check("pipe readv 1x512", ret, 512, rbuf, wbuf + 512);
	}
	report("pipe_readv_1x512", iters);
	for (k = 0; k < iters; k++) {
		v.iov_base = wbuf + 1024;
		SAMPLE(k, writev(p[1], &v, 1));
		check("pipe writev 1x512", ret, 512, NULL, NULL);
		if (read(p[0], rbuf, 512) != 512 || memcmp(rbuf, wbuf + 1024, 512))
			fail("pipe writev 1x512 drain");
	}
	report("pipe_writev_1x512", iters);

	/* Corked as in udp_cases(): software checksums on both sides. */
	for (k = 0; k < iters; k++) {
		v.iov_base = wbuf + 2048;
		SAMPLE(k, sendmsg(s, &m, MSG_MORE) + send(s, wbuf, 0, 0));
		check("udp sendmsg 1x512", ret, 512, NULL, NULL);
		if (recv(r, rbuf, 512, 0) != 512 || memcmp(rbuf, wbuf + 2048, 512))
			fail("udp sendmsg drain");
	}
	report("udp_sendmsg_1x512_swcsum", iters);
	for (k = 0; k < iters; k++) {
		if (send(s, wbuf + 2560, 512, MSG_MORE) != 512 || send(s, wbuf, 0, 0))
			fail("udp fill");
		v.iov_base = rbuf;
		SAMPLE(k, recvmsg(r, &m, 0));
		check("udp recvmsg 1x512", ret, 512, rbuf, wbuf + 2560);
	}
	report("udp_recvmsg_1x512_swcsum", iters);
	close(r);
	close(s);
	close(p[0]);
	close(p[1]);
	close(fd);
}

/*
 * The read of seed 000's report: 4 KiB from a file of ext4 mounted -o dax
 * on /dev/pmem0 (the region memmap= gives the kernel), where the data moves
 * through dax_iomap_rw() and the pmem driver's _copy_mc_to_iter(), then
 * the same calls on tmpfs, and a 4 KiB memcpy() in this process as the
 * floor of any 4 KiB read.  The ext4 image is /ext4.img of the initramfs
 * (ci/syscall-bench.sh makes it with mkfs.ext4), written to the device here.
 */
static void read_cases(const char *dir, const char *prefix)
{
	static const int nvecs[] = { 1, 2, 8 };
	struct iovec iov[8];
	char path[64], name[64];
	unsigned long k;
	long ret;
	int fd, v, n;

	snprintf(path, sizeof(path), "%s/read.dat", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		fail(path);
	if (write(fd, wbuf, sizeof(wbuf)) != sizeof(wbuf) || fsync(fd))
		fail("write the file to read");
	snprintf(name, sizeof(name), "%s_pread_4096", prefix);
	case_windows(name);
	for (k = 0; k < iters; k++) {
		memset(rbuf, 0, 4096);
		syscall_bench_window_open();
		SAMPLE(k, pread(fd, rbuf, 4096, 8192));
		syscall_bench_window_close();
		check(name, ret, 4096, rbuf, wbuf + 8192);
	}
	report(name, iters);
	for (n = 0; n < 3; n++) {
		int nv = nvecs[n];

		for (v = 0; v < nv; v++) {
			iov[v].iov_base = rbuf + v * (4096 / nv);
			iov[v].iov_len = 4096 / nv;
		}
		snprintf(name, sizeof(name), "%s_preadv_%dx%d", prefix, nv, 4096 / nv);
		case_windows(name);
		for (k = 0; k < iters; k++) {
			memset(rbuf, 0, 4096);
			syscall_bench_window_open();
			SAMPLE(k, preadv(fd, iov, nv, 8192));
			syscall_bench_window_close();
			check(name, ret, 4096, rbuf, wbuf + 8192);
		}
		report(name, iters);
	}
	close(fd);
}

/* the floor: glibc's memcpy() of 4 KiB, as this guest's CPU model runs it */
static __attribute__((noinline)) long copy_4096(void *to, const void *from)
{
	memcpy(to, from, 4096);
	asm volatile("" : : "r"(to) : "memory");
	return 4096;
}

static void dax_cases(void)
{
	static unsigned char img[1 << 20];
	struct statx stx;
	unsigned long k;
	long ret;
	ssize_t n;
	int in, dev;

	if (mkdir("/devtmp", 0755) || mount("devtmpfs", "/devtmp", "devtmpfs", 0, NULL))
		fail("mount devtmpfs");
	in = open("/ext4.img", O_RDONLY);
	if (in < 0)
		fail("open /ext4.img");
	dev = open("/devtmp/pmem0", O_WRONLY);
	if (dev < 0) {
		struct dirent *e;
		DIR *d = opendir("/devtmp");

		printf("syscall-bench: no /dev/pmem0; the devices are:");
		while (d && (e = readdir(d)))
			printf(" %s", e->d_name);
		printf("\n");
		if (d)
			closedir(d);
		if (!mkdir("/sys", 0755) && !mount("sysfs", "/sys", "sysfs", 0, NULL) &&
		    (d = opendir("/sys/bus/nd/devices"))) {
			printf("syscall-bench: the nvdimm bus has:");
			while ((e = readdir(d)))
				printf(" %s", e->d_name);
			printf("\n");
			closedir(d);
		}
		fail("open /dev/pmem0 (memmap=nn!ss on the command line?)");
	}
	while ((n = read(in, img, sizeof(img))) > 0)
		if (write(dev, img, n) != n)
			fail("write the ext4 image to /dev/pmem0");
	if (n < 0 || fsync(dev))
		fail("copy the ext4 image");
	close(in);
	close(dev);
	if (mkdir("/dax", 0755) || mount("/devtmp/pmem0", "/dax", "ext4", 0, "dax"))
		fail("mount /dev/pmem0 on /dax with -o dax");
	read_cases("/dax", "dax");
	/* the reads above were DAX reads, or the table would lie */
	if (statx(AT_FDCWD, "/dax/read.dat", 0, STATX_BASIC_STATS, &stx))
		fail("statx /dax/read.dat");
	if (!(stx.stx_attributes_mask & STATX_ATTR_DAX) || !(stx.stx_attributes & STATX_ATTR_DAX)) {
		errno = EINVAL;
		fail("/dax/read.dat is not a DAX file");
	}
	printf("syscall-bench: /dax/read.dat is a DAX file (statx STATX_ATTR_DAX)\n");
	if (mkdir("/tmpfs", 0755) || mount("tmpfs", "/tmpfs", "tmpfs", 0, NULL))
		fail("mount tmpfs");
	read_cases("/tmpfs", "tmpfs");
	case_windows("memcpy_4096");
	for (k = 0; k < iters; k++) {
		memset(rbuf, 0, 4096);
		syscall_bench_window_open();
		SAMPLE(k, copy_4096(rbuf, wbuf + 8192));
		syscall_bench_window_close();
		check("memcpy 4096", ret, 4096, rbuf, wbuf + 8192);
	}
	report("memcpy_4096", iters);
}

int main(int argc, char **argv)
{
	const char *n = getenv("bench_iters");

	if (n)
		iters = strtoul(n, NULL, 0);
	if (iters < 3)
		iters = 3;
	samples = calloc(iters, sizeof(*samples));
	printf("syscall-bench: start, %lu calls per case\n", iters);
	calibrate();
	file_cases();
	udp_cases();
	vec_cases();
	dax_cases();
	if (windows_opened != windows_closed) {
		errno = EINVAL;
		fail("the windows of the plugin do not pair");
	}
	printf("syscall-bench: done, %u windows\n", windows_opened);
	fflush(stdout);
	sync();
	reboot(RB_AUTOBOOT);
	return 0;
}
