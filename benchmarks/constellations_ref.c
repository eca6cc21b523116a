/* The constellation search of nqueens_plugins/builtin/engines/constellations.py written plainly in C:
 * a recursion over the columns the search fills, one queen per column, the diagonals shifted by
 * the gap to the next filled column. benchmarks/counting.py feeds it the same constellations and
 * masks as the compiled counter and times both on one core, to show what the method costs in
 * C without the kernel's look-ahead and closed-form last columns.
 *
 * Input (a file): one line per constellation, "weight levels allowed[0..levels-1] gaps[0..levels-1]"
 * (weight 8/|H|). Prints the weighted total (the count of all solutions) and the seconds.
 * gcc -O2 -o constellations_ref constellations_ref.c && ./constellations_ref FILE */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

static uint64_t allowed[64], gaps[64];
static int levels;

static uint64_t place(int level, uint64_t rows, uint64_t down, uint64_t up) {
    uint64_t free = allowed[level] & ~(rows | down | up), total = 0;
    if (level == levels - 1) return free != 0;
    uint64_t gap = gaps[level];
    while (free) {
        uint64_t bit = free & -free;
        free ^= bit;
        total += place(level + 1, rows | bit, (down | bit) << gap, (up | bit) >> gap);
    }
    return total;
}

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    FILE *input = fopen(argv[1], "r");
    if (!input) return 2;
    static uint64_t weights[1 << 20];
    static uint64_t table[1 << 20][2 * 64 + 1];
    int count = 0, weight;
    while (count < (1 << 20) && fscanf(input, "%d %d", &weight, &levels) == 2) {  /* read first, then time */
        weights[count] = (uint64_t)weight;
        table[count][0] = (uint64_t)levels;
        for (int s = 0; s < 2 * levels; s++) fscanf(input, "%lu", &table[count][1 + s]);
        count++;
    }
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    uint64_t total = 0;
    for (int c = 0; c < count; c++) {
        levels = (int)table[c][0];
        for (int s = 0; s < levels; s++) {
            allowed[s] = table[c][1 + s];
            gaps[s] = table[c][1 + levels + s];
        }
        total += weights[c] * (levels ? place(0, 0, 0, 0) : 1);
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    printf("%lu %.6f\n", total, (end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9);
    return 0;
}
