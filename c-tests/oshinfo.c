// rshmemx_info_print, what oshinfo prints: in --parsable form every line is `key:value` with a key
// free of spaces and colons; the keys scripts rely on are there (version, spec, build, UCX,
// launchers, limits, every variable's default and value); a variable set in the environment shows
// its value next to its default. Needs no shmem_init.
// pes: 1 2
// env: SHMEM_DEBUG=1
#define _POSIX_C_SOURCE 200809L // fileno, dup
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char text[1 << 16];

static int has_line(const char *line)
{
    size_t n = strlen(line);
    for (const char *p = text; (p = strstr(p, line)) != NULL; p += n)
        if ((p == text || p[-1] == '\n') && p[n] == '\n')
            return 1;
    return 0;
}

static int has_key(const char *key)
{
    size_t n = strlen(key);
    for (const char *p = text; (p = strstr(p, key)) != NULL; p += n)
        if ((p == text || p[-1] == '\n') && p[n] == ':')
            return 1;
    return 0;
}

int main(void)
{
    FILE *tmp = tmpfile();
    int saved = dup(1);
    if (!tmp || saved < 0) {
        perror("oshinfo test: tmpfile/dup");
        return 1;
    }
    fflush(stdout);
    dup2(fileno(tmp), 1);
    int rc = rshmemx_info_print(1);
    dup2(saved, 1);
    rewind(tmp);
    size_t len = fread(text, 1, sizeof text - 1, tmp);
    text[len] = '\0';
    int bad = 0;
    if (rc != 0) {
        fprintf(stderr, "rshmemx_info_print returned %d\n", rc);
        bad = 1;
    }
    int lines = 0;
    for (char *line = text; *line; lines++) {
        char *end = strchr(line, '\n');
        if (!end) {
            fprintf(stderr, "the report does not end with a newline\n");
            bad = 1;
            break;
        }
        char *colon = memchr(line, ':', (size_t)(end - line));
        if (!colon || colon == line || memchr(line, ' ', (size_t)(colon - line))) {
            fprintf(stderr, "not a key:value line: %.*s\n", (int)(end - line), line);
            bad = 1;
        }
        line = end + 1;
    }
    const char *keys[] = {"library", "version", "spec", "build.profile", "build.features",
                          "ucx.version", "ucx.devices", "ucx.settings", "pmix", "launcher.oshrun",
                          "launcher.mpiexec.hydra", "launcher.mpirun", "launcher.srun",
                          "limit.contexts", "limit.teams", "limit.heap",
                          "env.SHMEM_SYMMETRIC_SIZE.default", "env.SHMEM_SYMMETRIC_SIZE.value",
                          "env.SHMEM_INFO.help", "env.SHMEM_TRANSPORT.default", "env.SHMEM_LOG.default"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (!has_key(keys[i])) {
            fprintf(stderr, "key %s missing\n", keys[i]);
            bad = 1;
        }
    const char *want[] = {"spec:1.6", "env.SHMEM_DEBUG.default:no", "env.SHMEM_DEBUG.value:yes",
                          "env.SHMEM_SYMMETRIC_SIZE.default:1073741824", "env.SHMEM_LOG.value:off"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        if (!has_line(want[i])) {
            fprintf(stderr, "line '%s' missing\n", want[i]);
            bad = 1;
        }
    if (bad)
        fprintf(stderr, "the report (%d lines):\n%s", lines, text);
    else
        printf("oshinfo report: %d key:value lines, all well formed\n", lines);
    return bad;
}
