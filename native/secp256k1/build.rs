// Links the addon against the Node-API symbols the host process provides at load.
fn main() {
    napi_build::setup();
}
