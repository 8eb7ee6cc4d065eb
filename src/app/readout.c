#include "app/readout.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Text on one line: a message's line breaks would start new keys. */
static void put_text(FILE *f, const char *key, const char *text)
{
    fprintf(f, "%s ", key);
    for (const char *c = text ? text : ""; *c; c++) fputc(*c == '\n' || *c == '\r' ? ' ' : *c, f);
    fputc('\n', f);
}

int readout_write(const char *path, const ReadoutState *r, char *err, size_t errlen)
{
    char tmp[4200];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) {
        snprintf(err, errlen, "readout: %s: path too long", path);
        return -1;
    }
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(err, errlen, "readout: cannot write %s: %s", tmp, strerror(errno));
        return -1;
    }
    const UiModel *u = r->ui;
    fprintf(f, "frame %d\ntime %.9g\nstep %lld\n", r->frame, r->time, r->step);
    fprintf(f, "dt %.9g\nsoftening %.9g\ndamping %.9g\n", r->params.dt, r->params.softening, r->params.damping);
    fprintf(f, "bodies %d\n", r->bodies);
    put_text(f, "backend", r->backend);
    fprintf(f, "size %d %d\nfullscreen %d\nfollow %d\nrecording %d\n", r->width, r->height, r->fullscreen, r->follow,
            r->recording);
    fprintf(f, "camera_distance %.9g\ncamera_yaw %.9g\n", r->camera_distance, r->camera_yaw);
    fprintf(f, "paused %d\nsteps_per_frame %d\npoint_size %.9g\nexposure %.9g\ncolor_mode %d\n", u->paused,
            u->steps_per_frame, u->point_size, u->exposure, u->color_mode);
    fprintf(f, "show_halo %d\nauto_rotate %d\nlecture %d\nvisible %d\ncycling %d\ncycle_seconds %.9g\n", u->show_halo,
            u->auto_rotate, u->lecture, u->visible, u->cycling, u->cycle_seconds);
    fprintf(f, "preset %d\npresets %d\nundo_depth %d\nenergy_valid %d\nenergy_error %.9g\n", u->preset,
            u->preset_count, u->undo_depth, u->energy_valid, u->energy_error);
    fprintf(f, "alarm %d\n", r->alarm && r->alarm[0]);
    put_text(f, "alarm_text", r->alarm);
    put_text(f, "notice", r->notice);
    for (int i = 0; i < u->widget_count; i++) {
        const UiWidget *w = &u->widgets[i];
        fputs("widget ", f);
        for (const char *c = w->name; *c; c++) fputc(*c == ' ' ? '_' : *c, f); /* one word per name */
        fprintf(f, " %.1f %.1f %.1f %.1f\n", w->x0, w->y0, w->x1, w->y1);
    }
    const bool ok = !ferror(f);
    if (fclose(f) != 0 || !ok || rename(tmp, path) != 0) {
        snprintf(err, errlen, "readout: cannot write %s: %s", path, strerror(errno));
        remove(tmp);
        return -1;
    }
    return 0;
}
