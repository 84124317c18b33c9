/// Header parameters must exist, be required, and have distinct HTTP token names.
#[buril::tool(headers(
    regoin = "Region",
    tenant = "Tenant",
    user = "User Name",
    zone = "tenant"
))]
fn demo_headers(
    /// Where.
    region: String,
    /// Whose.
    tenant: Option<String>,
    /// Who.
    user: String,
    /// Which.
    zone: String,
) {
    let _ = (region, tenant, user, zone);
}

fn main() {}
