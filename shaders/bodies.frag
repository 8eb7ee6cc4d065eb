#version 330 core
// A Gaussian spot across the sprite, reaching zero at its rim; light adds up (GL_ONE, GL_ONE).

in vec3 v_color;
out vec4 frag;

void main()
{
    vec2 p = gl_PointCoord * 2.0 - 1.0;
    float r2 = dot(p, p);
    if (r2 > 1.0) discard;
    const float rim = exp(-4.0);
    float g = (exp(-4.0 * r2) - rim) / (1.0 - rim);
    frag = vec4(v_color * g, 1.0);
}
