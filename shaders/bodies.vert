#version 330 core
// One point sprite per body. Size follows depth relative to the focus distance and, mildly,
// the body's mass; colour follows its tag (galaxy x component) or its speed.

layout(location = 0) in vec4 a_position; // x, y, z, mass
layout(location = 1) in float a_speed;
layout(location = 2) in uint a_tag;      // galaxy << 2 | component

uniform mat4 u_view;
uniform mat4 u_proj;
uniform float u_size;        // pixels at the focus distance for a body of mass u_mass_ref
uniform float u_max_size;
uniform float u_focus;
uniform float u_mass_ref;
uniform float u_brightness;  // peak intensity of one disk sprite
uniform int u_color_mode;    // 0 component, 1 speed
uniform float u_speed_scale;
uniform int u_show_halo;

out vec3 v_color;

const uint HALO = 2u; // components as in render/renderer.h (RENDER_TAG_IS_HALO) and sim/bodies.h

// Linear-light colours, [galaxy][component]: A cool blue-white, B warm coral; bulges golden.
const vec3 palette[8] = vec3[8](
    vec3(0.50, 0.68, 1.00), vec3(1.00, 0.80, 0.50), vec3(0.30, 0.38, 0.80), vec3(0.82, 0.87, 1.00),
    vec3(1.00, 0.45, 0.30), vec3(1.00, 0.72, 0.35), vec3(0.75, 0.32, 0.30), vec3(1.00, 0.80, 0.68));
// The halo is dark matter: a faint dusting when shown, never competing with the disks.
const float component_gain[4] = float[4](1.0, 1.3, 0.05, 1.0);

vec3 speed_ramp(float t)
{
    const vec3 stops[5] = vec3[5](vec3(0.10, 0.18, 0.95), vec3(0.05, 0.65, 1.00),
                                  vec3(0.45, 1.00, 0.45), vec3(1.00, 0.62, 0.10),
                                  vec3(1.00, 0.12, 0.08));
    float x = clamp(t, 0.0, 1.0) * 4.0;
    int i = min(int(x), 3);
    return mix(stops[i], stops[i + 1], x - float(i));
}

void main()
{
    uint component = a_tag & 3u;
    if (component == HALO && u_show_halo == 0) {
        // Outside the clip volume: the point is dropped before rasterisation.
        gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
        gl_PointSize = 1.0;
        v_color = vec3(0.0);
        return;
    }
    vec4 eye = u_view * vec4(a_position.xyz, 1.0);
    gl_Position = u_proj * eye;

    float depth = max(-eye.z, 1e-6 * u_focus);
    float mass = clamp(a_position.w / u_mass_ref, 0.125, 27.0);
    float size = u_size * (u_focus / depth) * pow(mass, 1.0 / 3.0);
    // A sprite drawn larger than asked keeps the light of the one asked for.
    float energy = size < 1.0 ? size * size : 1.0;
    gl_PointSize = clamp(size, 1.0, u_max_size);

    vec3 color = u_color_mode == 1 ? speed_ramp(a_speed / u_speed_scale)
                                   : palette[min(a_tag, 7u)];
    v_color = color * (u_brightness * component_gain[component] * energy);
}
