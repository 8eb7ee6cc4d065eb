#version 330 core
// HDR light to display. Exposure; a soft glow (kernels/glow.h: level 2 and the Gaussians of levels
// 3 and 4); Reinhard on luminance, so
// that a dense core keeps its hue and its gradient instead of clipping to a flat white plateau
// (light beyond what a channel shows spills into the others, whitening the hottest cores);
// gamma; and a little dither so that faint gradients on black do not band.

in vec2 v_uv;
out vec4 frag;

uniform sampler2D u_hdr;
uniform sampler2D u_glow3; // level 3, blurred
uniform sampler2D u_glow4; // level 4, blurred
uniform vec2 u_uv_scale; // the view's share of the target, which is padded so that its levels halve evenly
uniform float u_exposure;
uniform float u_glow;

const float WHITE = 20.0; // luminance that maps to 1

// Cubic B-spline filtering from four bilinear taps: the coarse levels come out smooth instead of
// showing their texel grid.
vec3 smooth_texture(sampler2D level, vec2 uv)
{
    vec2 size = vec2(textureSize(level, 0));
    vec2 p = uv * size - 0.5;
    vec2 i = floor(p), f = p - i, f2 = f * f, f3 = f2 * f;
    vec2 w0 = (1.0 - 3.0 * f + 3.0 * f2 - f3) / 6.0;
    vec2 w1 = (4.0 - 6.0 * f2 + 3.0 * f3) / 6.0;
    vec2 w2 = (1.0 + 3.0 * f + 3.0 * f2 - 3.0 * f3) / 6.0;
    vec2 w3 = f3 / 6.0;
    vec2 g0 = w0 + w1, g1 = w2 + w3;
    vec2 t0 = (i - 0.5 + w1 / g0) / size, t1 = (i + 1.5 + w3 / g1) / size;
    return g0.y * (g0.x * textureLod(level, vec2(t0.x, t0.y), 0.0).rgb + g1.x * textureLod(level, vec2(t1.x, t0.y), 0.0).rgb)
         + g1.y * (g0.x * textureLod(level, vec2(t0.x, t1.y), 0.0).rgb + g1.x * textureLod(level, vec2(t1.x, t1.y), 0.0).rgb);
}

void main()
{
    vec2 uv = v_uv * u_uv_scale;
    vec3 hdr = textureLod(u_hdr, uv, 0.0).rgb;
    vec3 glow = 0.5 * textureLod(u_hdr, uv, 2.0).rgb + 0.3 * smooth_texture(u_glow3, uv) + 0.2 * smooth_texture(u_glow4, uv);
    vec3 x = u_exposure * (hdr + u_glow * glow);
    float l = dot(x, vec3(0.2126, 0.7152, 0.0722));
    vec3 c = x * ((1.0 + l / (WHITE * WHITE)) / (1.0 + l));
    float over = max(max(c.r, max(c.g, c.b)) - 1.0, 0.0);
    c = min(c + 0.5 * over, vec3(1.0));
    c = pow(c, vec3(1.0 / 2.2));
    float noise = fract(52.9829189 * fract(dot(gl_FragCoord.xy, vec2(0.06711056, 0.00583715))));
    frag = vec4(c + (noise - 0.5) / 255.0, 1.0);
}
