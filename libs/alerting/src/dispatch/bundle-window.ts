/** The route schema's account of `bundle_window_seconds` (create, update, show, list). */
export const BUNDLE_WINDOW_DOC =
  'storm control, 0 (the default) turns it off: the alert that finds no open bundle on this ' +
  'route notifies at once and opens one for this many seconds; alerts routed here while it is ' +
  'open join it and reach the in-app target as one notification per recipient ("N more ' +
  'alerts on route X", listing them) when it closes. Endpoints still get every alert. The ' +
  "first alert's escalation covers the bundle (and ends, as any, when that alert resolves): " +
  "acknowledging that alert acknowledges the bundle's alerts, each of which can still be " +
  'acknowledged alone. Resolutions are bundled the same way ("N alerts resolved"). An alert ' +
  'at the exact end of the window opens a new bundle.';

/** The routes `seed_presets` creates bundle what arrives within this many seconds. */
export const PRESET_BUNDLE_WINDOW_SECONDS = 30;
