// Run by KWin (5.27's scripting API) for uidriver's `wayland/kwin/bus.rs`: optionally acts on
// one window, then reports every listed window back over D-Bus. `bus.rs` fills in the quoted
// placeholders (JSON string literals) before loading the file.
var reply = { service: "@SERVICE@", path: "@PATH@", plugin: "@PLUGIN@" };
var command = "@COMMAND@";
var target = "@TARGET@";

function idOf(w) {
  return w.internalId.toString();
}

function rect(g) {
  return [Math.round(g.x), Math.round(g.y), Math.round(g.width), Math.round(g.height)];
}

function listed(w) {
  return !w.deleted && !w.desktopWindow && !w.dock && !w.popupWindow && !w.tooltip &&
    !w.notification && !w.criticalNotification && !w.onScreenDisplay && !w.splash &&
    !w.dndIcon;
}

var done = false;
var all = workspace.clientList();
if (command !== "list") {
  for (var i = 0; i < all.length; i++) {
    var w = all[i];
    if (idOf(w).substr(1, 8) !== target) {
      continue;
    }
    if (command === "activate") {
      if (w.minimized) {
        w.minimized = false;
      }
      workspace.activeClient = w;
    } else if (command === "close") {
      w.closeWindow();
    }
    done = true;
    break;
  }
}

var windows = [];
var popups = [];
for (var j = 0; j < all.length; j++) {
  var v = all[j];
  if (!v.deleted && v.popupWindow) {
    popups.push({ pid: v.pid, frame: rect(v.frameGeometry) });
  }
  if (!listed(v)) {
    continue;
  }
  windows.push({
    id: idOf(v),
    pid: v.pid,
    title: v.caption,
    class: v.resourceClass.toString(),
    frame: rect(v.frameGeometry),
    buffer: rect(v.bufferGeometry),
    stacking: v.stackingOrder,
    hidden: v.minimized || v.hidden,
    dialog: v.dialog,
    modal: v.modal,
    transientFor: v.transient && v.transientFor ? idOf(v.transientFor) : null,
  });
}
var active = workspace.activeClient ? idOf(workspace.activeClient) : null;
callDBus(reply.service, reply.path, "org.uidriver.KWinScript", "report", reply.plugin,
  JSON.stringify({ done: done, active: active, windows: windows, popups: popups }));
