extension StatusPage {
    /// The overview's HTML. `{{head}}`, `{{token-form}}` and `{{tail}}` are replaced by ``head``, ``tokenForm`` and
    /// ``tail``, `{{title}}` by the page's title, `{{nonce}}` by the response's CSP nonce, `{{style}}` by ``style``,
    /// `{{script}}` by ``script``.
    ///
    /// The markup is static: the script fills it with DOM nodes and text (never HTML strings). The hidden `<svg>`
    /// gives the script the SVG namespace without a URL in the page.
    static let markup = PageAssets.overviewHTML

    /// Everything before the page's own `<header>`: document head with the nonce'd style, and the start of the body.
    static let head = PageAssets.headHTML

    /// The end of every page: its nonce'd script.
    static let tail = PageAssets.tailHTML

    /// The form that asks for the bearer token when the feed answers 401.
    static let tokenForm = PageAssets.tokenFormHTML
}
