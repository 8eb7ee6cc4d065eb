#version 330 core
// One pass of the glow's Gaussian (kernels/glow.h): level u_lod of u_src blurred along u_step, the
// texels beyond the edge those of the edge, as GL_CLAMP_TO_EDGE gives. Run across, then up.

out vec4 frag;

uniform sampler2D u_src;
uniform int u_lod;
uniform ivec2 u_step;
uniform int u_radius;
uniform float u_weight[16]; // GLOW_TAPS: the centre's, then one side's

void main()
{
    ivec2 p = ivec2(gl_FragCoord.xy);
    ivec2 last = textureSize(u_src, u_lod) - 1;
    vec3 sum = u_weight[0] * texelFetch(u_src, p, u_lod).rgb;
    for (int j = 1; j <= u_radius; j++) {
        vec3 a = texelFetch(u_src, clamp(p - j * u_step, ivec2(0), last), u_lod).rgb;
        vec3 b = texelFetch(u_src, clamp(p + j * u_step, ivec2(0), last), u_lod).rgb;
        sum += u_weight[j] * (a + b);
    }
    frag = vec4(sum, 1.0);
}
