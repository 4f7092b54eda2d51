// The map's geometry, in metres on the scene plane (y up): distances, who is inside a zone, a
// blast's rings. Pure functions, used by the GM's map (map.js), the player's view and the feed.

export const round1 = (value) => Math.round(value * 10) / 10;
export const distance = (a, b) => Math.hypot(a.x - b.x, a.y - b.y);

// Inside or on the edge of any simple polygon (Hard Life's suppressed area may be concave): an
// even-odd ray cast, a point on an edge counting as inside.
export function insidePolygon(points, point) {
  const EPSILON = 1e-9;
  let inside = false;
  for (let i = 0, j = points.length - 1; i < points.length; j = i, i += 1) {
    const a = points[i];
    const b = points[j];
    const cross = (b.x - a.x) * (point.y - a.y) - (b.y - a.y) * (point.x - a.x);
    const within = Math.min(a.x, b.x) - EPSILON <= point.x && point.x <= Math.max(a.x, b.x) + EPSILON
      && Math.min(a.y, b.y) - EPSILON <= point.y && point.y <= Math.max(a.y, b.y) + EPSILON;
    if (Math.abs(cross) <= EPSILON && within) return true;
    if ((a.y > point.y) !== (b.y > point.y) && point.x < ((b.x - a.x) * (point.y - a.y)) / (b.y - a.y) + a.x) inside = !inside;
  }
  return inside;
}

// Inside or on the edge of a zone: a convex polygon (sr5 triangle), any polygon (Hard Life's
// "polygon" zones) or a circle (d100).
export function insideZone(zone, point) {
  const EPSILON = 1e-9;
  if (zone.shape === "circle" && zone.center) {
    return distance(zone.center, point) <= zone.radius_m + EPSILON;
  }
  const points = zone.points || [];
  if (points.length < 3) return false;
  if (zone.shape === "polygon") return insidePolygon(points, point);
  let sign = 0;
  for (let i = 0; i < points.length; i += 1) {
    const a = points[i];
    const b = points[(i + 1) % points.length];
    const cross = (b.x - a.x) * (point.y - a.y) - (b.y - a.y) * (point.x - a.x);
    if (Math.abs(cross) <= EPSILON) continue;
    const side = Math.sign(cross);
    if (sign === 0) sign = side;
    else if (side !== sign) return false;
  }
  return true;
}

// A held sr4 grenade, as the service lists it among the zones (service/rules/sr4/grenades.py,
// pending_zone): a circle as far as its blast hurts, until the turn reaches its moment.
export const isGrenade = (zone) => String(zone.kind || "").startsWith("grenade");

// A blast's rings, from the numbers its result gives: an even blast's one circle (its radius);
// a falling-off one's, the metres at which each quarter of its DV is lost (outermost: where it
// reaches 0).
export function blastRings(blast) {
  if (blast.radius_m !== null && blast.radius_m !== undefined && !blast.falloff_per_m) {
    return [{ radius_m: blast.radius_m, dv: blast.dv, outer: true }];
  }
  if (!blast.falloff_per_m || blast.dv <= 0) return [];
  const reach = blast.dv / blast.falloff_per_m;
  return [1, 2, 3, 4].map((quarter) => ({
    radius_m: (reach * quarter) / 4,
    dv: Math.round(blast.dv - (blast.dv * quarter) / 4),
    outer: quarter === 4,
  }));
}
