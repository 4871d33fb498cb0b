/*
 * io_floor.c — the least a program can do for ioping -C's measurement: N
 * preads of SIZE bytes at random SIZE-aligned offsets of a cached FILE,
 * each timed by two clock_gettime(CLOCK_MONOTONIC) around it, no output
 * per request, the sum kept.  Prints the mean timed request (ns) and the
 * wall time per request (ns), and the median timed request (ns, less
 * moved by a busy machine's preemptions than the mean): the floor
 * pgtempo-io -C is held against.
 *
 * usage: io_floor FILE [COUNT [SIZE]]    (defaults 200000 and 4096)
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
	return x < y ? -1 : x > y;
}

static uint64_t now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long count = argc > 2 ? atol(argv[2]) : 200000, size = argc > 3 ? atol(argv[3]) : 4096;
	int fd = argc > 1 ? open(argv[1], O_RDONLY) : -1;
	struct stat st;
	uint64_t sum = 0, start, seed = 88172645463325252u;
	char *buf;
	uint64_t *times;

	if (fd < 0 || fstat(fd, &st) != 0 || st.st_size < size || posix_memalign((void **) &buf, 4096, size))
	{
		fprintf(stderr, "usage: io_floor FILE [COUNT [SIZE]]\n");
		return 1;
	}
	long slots = st.st_size / size;
	if ((times = malloc(sizeof(*times) * (size_t) count)) == NULL)
		return 1;
	start = now();
	for (long i = 0; i < count; i++)
	{
		seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
		uint64_t t0 = now();
		if (pread(fd, buf, size, (off_t) (seed % slots) * size) != size)
			return 2;
		times[i] = now() - t0;
		sum += times[i];
	}
	uint64_t wall = now() - start;
	qsort(times, (size_t) count, sizeof(*times), cmp);
	printf("%.1f %.1f %llu\n", (double) sum / count, (double) wall / count,
		   (unsigned long long) times[(count - 1) / 2]);
	return 0;
}
