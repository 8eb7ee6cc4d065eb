// DejaVu Sans where the system has it (Debian's fonts-dejavu-core and the like): large type and
// figures read better in it. Otherwise the built-in font, at a whole multiple of its 13 pixels
// so that its pixel-art glyphs stay sharp.
#include "util/font.h"

#include <math.h>
#include <stdio.h>
#include <unistd.h>

ImFont *font_add(ImFontAtlas *atlas, const char *file, float px)
{
    static const char *const dirs[] = {"/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/TTF",
                                       "/usr/share/fonts/dejavu-sans-fonts", "/usr/share/fonts/dejavu"};
    char path[256];
    for (const char *dir : dirs) {
        snprintf(path, sizeof path, "%s/%s", dir, file);
        if (access(path, R_OK) == 0) {
            ImFont *f = atlas->AddFontFromFileTTF(path, px);
            if (f) return f;
        }
    }
    ImFontConfig c;
    c.SizePixels = 13.0f * fmaxf(1.0f, roundf(px / 13.0f));
    return atlas->AddFontDefault(&c);
}
