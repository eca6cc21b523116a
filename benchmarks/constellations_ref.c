/* The constellation search of nqueens_plugins/builtin/engines/constellations.py written plainly in C:
 * a recursion over the columns the search fills, one queen per column, the diagonals shifted by
 * the gap to the next filled column. benchmarks/counting.py feeds it the same constellations and
 * masks as the compiled counter and times both on one core, to show what the method costs in
 * C without the kernel's look-ahead and closed-form last columns.
 *
 * Input (a file): one line per constellation, "weight levels allowed[0..levels-1] gaps[0..levels-1]"
 * (weight 8/|H|). Prints the weighted total (the count of all solutions) and the seconds.
 * gcc -O2 -o constellations_ref constellations_ref.c && ./constellations_ref FILE */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAX_LEVELS 64
#define ROW (2 + 2 * MAX_LEVELS) /* weight, levels, allowed[], gaps[] */

static uint64_t allowed[MAX_LEVELS], gaps[MAX_LEVELS];
static int levels;

static uint64_t place(int level, uint64_t rows, uint64_t down, uint64_t up) {
    uint64_t open = allowed[level] & ~(rows | down | up), total = 0;
    if (level == levels - 1) return open != 0;
    uint64_t gap = gaps[level];
    while (open) {
        uint64_t bit = open & -open;
        open ^= bit;
        total += place(level + 1, rows | bit, (down | bit) << gap, (up | bit) >> gap);
    }
    return total;
}

static int fail(const char *why) {
    fprintf(stderr, "constellations_ref: %s\n", why);
    return 2;
}

int main(int argc, char **argv) {
    if (argc != 2) return fail("usage: constellations_ref FILE");
    FILE *input = fopen(argv[1], "r");
    if (!input) return fail("cannot open the input file");
    size_t count = 0, capacity = 4096;
    uint64_t *table = malloc(capacity * ROW * sizeof *table);
    int weight, width;
    while (table && fscanf(input, "%d %d", &weight, &width) == 2) { /* read everything first, then time */
        if (width < 0 || width > MAX_LEVELS) return fail("a constellation with more than 64 levels");
        if (count == capacity) {
            capacity *= 2;
            uint64_t *larger = realloc(table, capacity * ROW * sizeof *table);
            if (!larger) return fail("out of memory");
            table = larger;
        }
        uint64_t *row = table + count * ROW;
        row[0] = (uint64_t)weight;
        row[1] = (uint64_t)width;
        for (int s = 0; s < 2 * width; s++)
            if (fscanf(input, "%" SCNu64, &row[2 + s]) != 1) return fail("a line ends early");
        count++;
    }
    if (!table) return fail("out of memory");
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    uint64_t total = 0;
    for (size_t c = 0; c < count; c++) {
        const uint64_t *row = table + c * ROW;
        levels = (int)row[1];
        for (int s = 0; s < levels; s++) {
            allowed[s] = row[2 + s];
            gaps[s] = row[2 + levels + s];
        }
        total += row[0] * (levels ? place(0, 0, 0, 0) : 1);
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    printf("%" PRIu64 " %.6f\n", total, (end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9);
    free(table);
    return 0;
}
